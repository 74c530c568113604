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
  /// The text the add field starts with (a refused title, so it can be corrected).
  var typedTitle: String? = nil
  /// The whole list's counts and the links to other pages, when the items are one page of it.
  var pager: Pager? = nil

  struct Pager {
    var total: Int
    var done: Int
    var first: String?
    var next: String?
  }

  var html: String {
    let styleID = HTML.escape(style.id)
    let base = "/styles/\(styleID)/todos"
    let returnField = #"<input type="hidden" name="return" value="\#(HTML.escape(returnTo))">"#
    let typedValue = typedTitle.map { #" value="\#(HTML.escape($0))""# } ?? ""
    // A refused title: the field says it is invalid, names the message, and takes the focus
    // back. Another refused change (a stale toggle) puts the focus on its message.
    let errorID = "error-\(styleID)"
    let fieldState =
      error == nil ? "" : typedTitle != nil ? #" aria-invalid="true" aria-describedby="\#(errorID)" autofocus"# : ""
    var html = """
      <section class="todo-list" id="list-\(styleID)" data-style="\(styleID)">
        <header>
          <h2>\(HTML.escape(style.name))</h2>
          <p class="summary">\(HTML.escape(style.summary))</p>
        </header>
        <form class="add" method="post" action="\(base)">
          \(returnField)
          <label for="title-\(styleID)">New item</label>
          <input id="title-\(styleID)" name="title" \
      placeholder="What needs doing?" autocomplete="off"\(typedValue)\(fieldState)>
          <button type="submit" id="add-\(styleID)">Add</button>
        </form>

      """
    if let error {
      let focus = typedTitle == nil ? #" tabindex="-1" autofocus"# : ""
      html += "  <p class=\"error\" role=\"alert\" id=\"\(errorID)\"\(focus)>\(HTML.escape(error))</p>\n"
    }
    if items.isEmpty, let pager, pager.total > 0 {
      // A page past the list's end (its last item was just deleted): the list is not empty.
      html += "  <p class=\"empty\">No items on this page any more.</p>\n"
    } else if items.isEmpty {
      html += "  <p class=\"empty\">Nothing to do.</p>\n"
    } else {
      html += "  <ul class=\"items\">\n"
      for (offset, item) in items.enumerated() {
        let id = item.id.uuidString
        let mark = item.done ? "Mark as not done" : "Mark as done"
        let machine = Self.machineDate(item.created)
        let title = HTML.escape(item.title)
        // Where a deletion lands: the item after this one on the page, if there is one.
        let nextField =
          offset + 1 < items.count
          ? #"<input type="hidden" name="next" value="\#(items[offset + 1].id.uuidString)">"# : ""
        html += """
              <li class="item\(item.done ? " done" : "")" data-id="\(id)">
                <form method="post" action="\(base)/\(id)/toggle">\(returnField)\
          <button class="toggle" id="toggle-\(id)" title="\(mark)" aria-label="\(mark): \(title)">\(item.done ? "☑" : "☐")</button></form>
                <span class="title" dir="auto">\(title)</span>
                <time datetime="\(machine)">\(Self.humanDate(machine))</time>
                <form method="post" action="\(base)/\(id)/delete">\(returnField)\(nextField)\
          <button class="delete" title="Delete" aria-label="Delete: \(title)">✕</button></form>
              </li>

          """
      }
      html += "  </ul>\n"
    }
    let total = pager?.total ?? items.count
    let doneCount = pager?.done ?? items.count(where: \.done)
    if let pager, pager.first != nil || pager.next != nil {
      html += "  <nav class=\"pager\" aria-label=\"Pages\">"
      if let first = pager.first {
        html += "<a class=\"first\" href=\"\(HTML.escape(first))\" id=\"first-\(styleID)\">« First page</a>"
      }
      if let next = pager.next {
        html += "<a class=\"next\" rel=\"next\" href=\"\(HTML.escape(next))\" id=\"next-\(styleID)\">Next page »</a>"
      }
      html += "</nav>\n"
    }
    html += """
        <footer>\(total) \(total == 1 ? "item" : "items"), \(doneCount) done</footer>
      </section>

      """
    return html
  }

  private static func machineDate(_ date: Date) -> String {
    date.formatted(.iso8601)
  }

  /// `yyyy-MM-dd HH:mm UTC`, cut from the ISO 8601 text (`yyyy-MM-ddTHH:mm:ssZ`): one date
  /// formatting per item.
  private static func humanDate(_ machine: String) -> String {
    machine.prefix(10) + " " + machine.dropFirst(11).prefix(5) + " UTC"
  }
}
