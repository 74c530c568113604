import Foundation

/// Renders a list of items, with the forms that add, complete and delete them.
///
/// Forms post to `/styles/<style>/todos…` and carry a hidden `return` field naming the page to
/// go back to. All user text is escaped.
struct TodoListView {
  let style: DIStyle
  let items: [TodoItem]
  let returnTo: String
  let error: String?

  var html: String {
    let styleID = HTML.escape(style.id)
    let base = "/styles/\(styleID)/todos"
    let returnField = #"<input type="hidden" name="return" value="\#(HTML.escape(returnTo))">"#
    var html = """
      <section class="todo-list" id="list-\(styleID)" data-style="\(styleID)">
        <header>
          <h2>\(HTML.escape(style.name))</h2>
          <p class="summary">\(HTML.escape(style.summary))</p>
        </header>
        <form class="add" method="post" action="\(base)">
          \(returnField)
          <label for="title-\(styleID)">New item</label>
          <input id="title-\(styleID)" name="title" maxlength="\(TodoTitle.maximumLength)" \
      placeholder="What needs doing?" autocomplete="off">
          <button type="submit">Add</button>
        </form>

      """
    if let error {
      html += "  <p class=\"error\" role=\"alert\">\(HTML.escape(error))</p>\n"
    }
    if items.isEmpty {
      html += "  <p class=\"empty\">Nothing to do.</p>\n"
    } else {
      html += "  <ul class=\"items\">\n"
      for item in items {
        let id = item.id.uuidString
        let mark = item.done ? "Mark as not done" : "Mark as done"
        html += """
              <li class="item\(item.done ? " done" : "")" data-id="\(id)">
                <form method="post" action="\(base)/\(id)/toggle">\(returnField)\
          <button class="toggle" title="\(mark)" aria-label="\(mark)">\(item.done ? "☑" : "☐")</button></form>
                <span class="title">\(HTML.escape(item.title))</span>
                <time datetime="\(Self.machineDate(item.created))">\(Self.humanDate(item.created))</time>
                <form method="post" action="\(base)/\(id)/delete">\(returnField)\
          <button class="delete" title="Delete" aria-label="Delete">✕</button></form>
              </li>

          """
      }
      html += "  </ul>\n"
    }
    let doneCount = items.count(where: \.done)
    html += """
        <footer>\(items.count) \(items.count == 1 ? "item" : "items"), \(doneCount) done</footer>
      </section>

      """
    return html
  }

  private static func machineDate(_ date: Date) -> String {
    date.formatted(.iso8601)
  }

  private static func humanDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
    return formatter.string(from: date)
  }
}
