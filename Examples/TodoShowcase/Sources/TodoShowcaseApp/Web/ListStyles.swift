/// The stylesheet rules for the list's pager, a phone-sized viewport and keyboard focus, served
/// after ``Layout/stylesheet`` in `/static/app.css`.
enum ListStyles {
  static let stylesheet = """

    /* Pages of the list */
    nav.pager { display: flex; flex-wrap: wrap; gap: 1rem; justify-content: space-between; margin: .75rem 0 0; }
    nav.pager a { color: var(--accent); text-decoration: none; padding: .25rem .5rem; border: 1px solid var(--line); border-radius: 6px; }
    nav.pager a.next { margin-left: auto; }

    /* Keyboard: a visible focus ring on everything that takes focus */
    a:focus-visible, button:focus-visible, input:focus-visible, summary:focus-visible, .graph-frame:focus-visible {
      outline: 3px solid var(--accent); outline-offset: 2px; border-radius: 4px;
    }
    button.toggle:focus-visible, button.delete:focus-visible { color: #1d2433; }
    /* On the dark header, the ring is white: the accent is too dark there */
    header.top a:focus-visible { outline-color: #fff; }

    /* Long words and code never widen the page */
    main, section, header.top, footer { min-width: 0; overflow-wrap: anywhere; }
    form.add input[name=title] { min-width: 0; }
    nav.tabs { flex-wrap: wrap; }
    table { display: block; max-width: 100%; overflow-x: auto; }
    pre, code { max-width: 100%; }

    /* Phone-sized viewports */
    @media (max-width: 600px) {
      header.top { padding: .75rem 1rem; }
      main { margin: 1rem auto; padding: 0 .5rem; }
      /* The four tabs as a two-by-two grid of buttons, not a tab row that wraps */
      nav.tabs { display: grid; grid-template-columns: 1fr 1fr; gap: .375rem; border-bottom: none; margin-bottom: .5rem; }
      nav.tabs a { display: flex; align-items: center; justify-content: center; padding: .55rem .5rem; font-size: .95rem; text-align: center; overflow-wrap: normal; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
      nav.tabs a.active { margin-bottom: 0; color: var(--accent); border-color: var(--accent); box-shadow: inset 0 0 0 1px var(--accent); }
      section.todo-list { border-top: 1px solid var(--line); border-radius: 8px; }
      section.todo-list, section.panel { padding: .75rem; }
      li.item { flex-wrap: wrap; gap: .5rem; }
      li.item .title { flex: 1 1 10rem; }
      li.item time { order: 3; flex-basis: 100%; padding-left: 2.2rem; }
      button.toggle, button.delete { min-width: 2.75rem; min-height: 2.75rem; }
    }

    """
}
