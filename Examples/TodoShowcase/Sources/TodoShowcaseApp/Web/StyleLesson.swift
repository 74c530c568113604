import DIShowcase

/// What a tab teaches: its style's three trade-off lines and the wiring code it runs, read from
/// the feature module's source at build time (``WiringSnippet``), under the list.
enum StyleLesson {
  /// The lesson panel of `style`; every text is escaped.
  static func html(for style: DIStyle) -> String {
    let id = HTML.escape(style.id)
    var html = """
      <section class="panel lesson" id="lesson-\(id)" aria-labelledby="lesson-\(id)-title">
        <h2 id="lesson-\(id)-title">How the \(HTML.escape(style.name)) tab is wired</h2>
        <dl class="tradeoffs">
          <dt>Gives</dt><dd class="gives">\(HTML.escape(style.gives))</dd>
          <dt>Costs</dt><dd class="costs">\(HTML.escape(style.costs))</dd>
          <dt>Pick it when</dt><dd class="pick">\(HTML.escape(style.pickWhen))</dd>
        </dl>
        <p class="summary">The code below is what this tab runs, taken from the source when the app was built.</p>

      """
    for snippet in Showcase.wiring(styleID: style.id) {
      let location = "\(snippet.path):\(snippet.line)"
      html += """
          <figure class="wiring" data-path="\(HTML.escape(snippet.path))" data-line="\(snippet.line)">
            <figcaption>\(HTML.escape(snippet.caption)) <span class="source">\(HTML.escape(location))</span></figcaption>
            <pre><code>\(HTML.escape(snippet.code))</code></pre>
          </figure>

        """
    }
    return html + "</section>\n"
  }

  /// The banner above the tabs: every tab is a different wiring of the same list on one storage.
  static func sharedStorageBanner(storageLabel: String) -> String {
    """
    <p class="shared-banner" id="shared-banner" role="note"><strong>One storage, four wirings.</strong> \
    All four tabs read and write the same <code>\(HTML.escape(storageLabel))</code> storage: an item added \
    in one tab is in every tab, and appears in any other open window within seconds, without a reload.</p>

    """
  }

  /// The styles of the lesson panel and the banner, appended to `app.css`.
  static let stylesheet = """
    .shared-banner { background: #eef2ff; border: 1px solid #c7d2fe; color: #1d2433; padding: .5rem .75rem; border-radius: 6px; margin: 0 0 1rem; }
    section.lesson { margin-top: 1rem; }
    section.lesson h2 { font-size: 1.1rem; margin: .25rem 0 .5rem; }
    dl.tradeoffs { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0 0 .75rem; }
    dl.tradeoffs dt { font-weight: 600; }
    dl.tradeoffs dd { margin: 0; }
    figure.wiring { margin: .75rem 0; }
    figure.wiring figcaption { font-weight: 600; font-size: .95rem; }
    figure.wiring .source { font-weight: normal; color: var(--muted); font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: .8rem; overflow-wrap: anywhere; }
    figure.wiring pre { margin: .25rem 0 0; font-size: .85rem; line-height: 1.4; }
    dl.legend { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
    dl.legend dt { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; }
    dl.legend dd { margin: 0; }
    .legend-swatch { vertical-align: middle; }
    #validation-report, #broken-report { white-space: pre-wrap; overflow-wrap: anywhere; }
    ul.registrations { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: .85rem; padding-left: 1.25rem; overflow-wrap: anywhere; }

    """
}

/// Keeps an open list in step with the shared storage: `live.js` fetches the list's page every
/// two seconds and swaps in the list when it changed, so an item added in another window
/// appears without a reload. It is a file under `/static/` because the Content-Security-Policy
/// allows no inline script.
///
/// The script tag names the page to fetch (`data-poll`): a refused change is answered at the
/// form's address (`POST /styles/ID/todos`), which has no `GET`, so the script must not poll
/// the address it is on.
enum LiveUpdates {
  /// The tag that loads the script, fetching the list page at `path` (a path of this app); put at
  /// the end of a list page's body.
  static func scriptTag(poll path: String) -> String {
    #"<script src="/static/live.js" data-poll="\#(HTML.escape(path))" defer></script>"# + "\n"
  }

  static let script = """
    // TodoShowcase: keeps the open list in step with the shared storage (see LiveUpdates in
    // StyleLesson.swift). Every two seconds it fetches the list's page (the script tag's data-poll,
    // which is not this address after a refused change); when the list differs it swaps the list
    // in, keeping what is typed in the add field, which control has the focus and the message
    // of a refused change.
    (function () {
      "use strict";
      var interval = 2000;
      var script = document.currentScript;
      var poll = (script && script.getAttribute("data-poll")) || location.pathname + location.search;
      // A refused change is shown at the form's address; show the list's, so a reload does not post again.
      if (poll !== location.pathname + location.search) history.replaceState(null, "", poll);

      // The list as compared: without the message of a refused change or the text typed with it.
      function listHTML(section) {
        var copy = section.cloneNode(true);
        var alert = copy.querySelector("p.error");
        if (alert) alert.remove();
        var field = copy.querySelector("input[name=title]");
        if (field) field.removeAttribute("value");
        return copy.outerHTML;
      }

      function focusKey(section) {
        var active = document.activeElement;
        if (!active || !section.contains(active)) return null;
        var item = active.closest("li[data-id]");
        return { id: active.id, item: item ? item.getAttribute("data-id") : null, className: active.className };
      }

      function restoreFocus(section, key) {
        if (!key) return;
        var target = null;
        if (key.id) target = document.getElementById(key.id);
        if (!target && key.item && key.className) {
          var item = section.querySelector('li[data-id="' + key.item + '"]');
          if (item) target = item.getElementsByClassName(key.className.split(" ")[0])[0] || null;
        }
        // The control's item is gone (deleted elsewhere): the add field, not the page's top.
        if (!target) target = section.querySelector("input[name=title]");
        if (target) target.focus();
      }

      function swap(current, next) {
        var field = current.querySelector("input[name=title]");
        var value = field ? field.value : "";
        var start = field ? field.selectionStart : null;
        var end = field ? field.selectionEnd : null;
        var key = focusKey(current);
        var alert = current.querySelector("p.error");
        var imported = document.importNode(next, true);
        var form = imported.querySelector("form.add");
        // Kept on screen, but no longer an alert: moved, it would be read out again.
        if (alert && form && !imported.querySelector("p.error")) {
          alert.removeAttribute("role");
          form.after(alert);
        }
        current.replaceWith(imported);
        var newField = imported.querySelector("input[name=title]");
        if (newField) newField.value = value;
        restoreFocus(imported, key);
        if (newField && document.activeElement === newField && start !== null) newField.setSelectionRange(start, end);
      }

      function refresh() {
        var current = document.querySelector("section.todo-list[id]");
        if (!current) return schedule();
        fetch(poll, {
          credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" }
        })
          .then(function (response) { return response.ok ? response.text() : null; })
          .then(function (text) {
            if (text === null) return;
            var next = new DOMParser().parseFromString(text, "text/html").getElementById(current.id);
            if (next && listHTML(next) !== listHTML(current)) swap(current, next);
          })
          .catch(function () {})
          .then(schedule);
      }

      function schedule() {
        window.setTimeout(refresh, interval);
      }

      schedule();
    })();

    """
}
