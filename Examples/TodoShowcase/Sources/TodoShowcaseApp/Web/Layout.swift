import DIShowcase

/// The page frame around every HTML view: head, styles, top navigation.
enum Layout {
  enum Section {
    case list
    case graph
    /// A page of neither section, such as "Not found".
    case none
  }

  /// The page for a request the app cannot answer as asked (not there, refused, failed): `title`
  /// as its heading and `message` (plain text) as an alert, with a link back to the lists.
  static func errorPage(storageLabel: String, title: String, section: Section = .none, _ message: String) -> String {
    page(
      title: title, section: section, storageLabel: storageLabel,
      body: """
        <section class="panel"><h2>\(HTML.escape(title))</h2>\
        <p class="error" role="alert">\(HTML.escape(message))</p>\
        <p><a href="/">Back to the lists</a></p></section>
        """
    )
  }

  static func page(title: String, section: Section, storageLabel: String, body: String) -> String {
    """
    <!doctype html>
    <html lang="en">
    <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(HTML.escape(title)) · TodoShowcase</title>
      <link rel="stylesheet" href="/static/app.css">
      <link rel="icon" href="/static/icon.svg" type="image/svg+xml">
    </head>
    <body>
      <header class="top">
        <h1><a href="/">TodoShowcase</a></h1>
        <p>One to-do list, four ways to wire it, one shared storage (<code>\(HTML.escape(storageLabel))</code>).</p>
        <nav class="sections">
          <a href="/"\(section == .list ? #" aria-current="page""# : "")>Lists</a>
          <a href="/graph"\(section == .graph ? #" aria-current="page""# : "")>Dependency graph</a>
        </nav>
      </header>
      <main>
    \(body)
      </main>
    </body>
    </html>

    """
  }

  /// The tab bar: one link per style; `current` is the style shown.
  static func tabs(_ styles: [DIStyle], current: String, link: (DIStyle) -> String) -> String {
    var html = #"<nav class="tabs" aria-label="DI styles">"# + "\n"
    for style in styles {
      let selected = style.id == current ? #" aria-current="page" class="tab active""# : #" class="tab""#
      html += #"  <a id="tab-\#(HTML.escape(style.id))" href="\#(HTML.escape(link(style)))"\#(selected)>"#
      html += "\(breakable(HTML.escape(style.name)))</a>\n"
    }
    return html + "</nav>\n"
  }

  /// `html` with a `<wbr>` where a lower-case letter meets an upper-case one, so that a narrow
  /// tab breaks "DependencyProvider" after "Dependency", not at whatever letter fills the line.
  private static func breakable(_ html: String) -> String {
    var result = ""
    var previous: Character?
    for character in html {
      if let previous, previous.isLowercase, character.isUppercase { result += "<wbr>" }
      result.append(character)
      previous = character
    }
    return result
  }

  static let stylesheet = """

    :root { --accent: #3b5bdb; --muted: #667085; --line: #e4e7ec; --bg: #f7f8fa; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2433; background: var(--bg); }
    header.top { background: #1d2433; color: #fff; padding: 1rem 2rem; }
    header.top h1 { margin: 0; font-size: 1.4rem; }
    header.top h1 a { color: #fff; text-decoration: none; }
    header.top p { margin: .25rem 0 .5rem; color: #c8cdd8; }
    header.top code { color: #fff; }
    nav.sections a { color: #c8cdd8; margin-right: 1rem; text-decoration: none; }
    nav.sections a[aria-current] { color: #fff; border-bottom: 2px solid #fff; }
    main { max-width: 52rem; margin: 1.5rem auto; padding: 0 1rem; }
    nav.tabs { display: flex; gap: .25rem; border-bottom: 1px solid var(--line); }
    nav.tabs a { padding: .5rem 1rem; text-decoration: none; color: var(--muted); border: 1px solid transparent; border-bottom: none; border-radius: 6px 6px 0 0; }
    nav.tabs a.active { background: #fff; color: #1d2433; border-color: var(--line); font-weight: 600; margin-bottom: -1px; }
    section.todo-list, section.panel { background: #fff; border: 1px solid var(--line); border-top: none; padding: 1rem 1.5rem; border-radius: 0 0 8px 8px; }
    section.panel { border-top: 1px solid var(--line); border-radius: 8px; margin-bottom: 1rem; }
    section.panel a { color: var(--accent); }
    section.todo-list h2 { margin: .25rem 0; font-size: 1.2rem; }
    .summary { color: var(--muted); margin-top: 0; }
    form.add { display: flex; gap: .5rem; align-items: center; margin: 1rem 0; }
    form.add label { position: absolute; left: -9999px; }
    form.add input[name=title] { flex: 1; padding: .5rem .75rem; border: 1px solid #767f8f; border-radius: 6px; font: inherit; }
    button { font: inherit; cursor: pointer; }
    form.add button { background: var(--accent); color: #fff; border: none; border-radius: 6px; padding: .5rem 1rem; }
    ul.items { list-style: none; padding: 0; margin: 0; }
    li.item { display: flex; align-items: center; gap: .75rem; padding: .5rem 0; border-bottom: 1px solid var(--line); }
    li.item form { margin: 0; }
    li.item .title { flex: 1; min-width: 0; overflow-wrap: anywhere; overflow: hidden; }
    li.item.done .title { text-decoration: line-through; color: var(--muted); }
    li.item time { color: var(--muted); font-size: .85rem; }
    button.toggle, button.delete { background: none; border: none; font-size: 1.2rem; color: var(--muted); }
    button.delete:hover { color: #d92d20; }
    .error { background: #fef3f2; color: #b42318; border: 1px solid #fecdca; padding: .5rem .75rem; border-radius: 6px; }
    .empty, footer { color: var(--muted); }
    footer { margin-top: .75rem; font-size: .9rem; }
    pre { background: var(--bg); border: 1px solid var(--line); padding: .75rem; border-radius: 6px; overflow-x: auto; }
    .graph-frame { margin: 1rem 0; overflow-x: auto; }
    svg.graph { display: block; max-width: 100%; height: auto; }
    @media (max-width: 40rem) { svg.graph { max-width: none; } }
    svg.graph text { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; }
    .valid { background: #ecfdf3; color: #067647; border: 1px solid #abefc6; padding: .5rem .75rem; border-radius: 6px; }
    details { margin: .5rem 0; }
    summary { cursor: pointer; color: var(--accent); }

    """
}
