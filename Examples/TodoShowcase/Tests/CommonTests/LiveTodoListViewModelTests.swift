import Common
import Foundation
import ShowcaseTestSupport
import Testing

@Suite("LiveTodoListViewModel")
struct LiveTodoListViewModelTests {
  private let storage = FakeStorage.withTwoItems()

  private func makeViewModel() -> LiveTodoListViewModel {
    LiveTodoListViewModel(
      storage: storage,
      now: { Date(timeIntervalSince1970: 1_800_000_000) },
      makeID: { UUID(uuidString: "33333333-3333-3333-3333-333333333333")! }
    )
  }

  @Test("Load reads the stored items in order")
  func load() throws {
    let viewModel = makeViewModel()
    try viewModel.load()
    #expect(viewModel.items == TodoFixtures.twoItems)
  }

  @Test("Load gives the list in list order, however the writers appended it")
  func loadInListOrder() throws {
    // Two writers that stamped their items before taking the store's lock append them in the
    // order they took it: the whole list must still come back in the pages' order.
    let storage = FakeStorage()
    try storage.save(Array(TodoFixtures.twoItems.reversed()), forKey: LiveTodoListViewModel.storageKey)
    let viewModel = LiveTodoListViewModel(storage: storage)
    try viewModel.load()
    #expect(viewModel.items == TodoFixtures.twoItems)
    #expect(viewModel.items == (try viewModel.loadPage(after: nil, limit: 10)).items)
  }

  @Test("Add trims the title, stamps it and stores it")
  func add() throws {
    let viewModel = makeViewModel()
    let item = try viewModel.add(title: "  Water the plants \n")
    #expect(item.title == "Water the plants")
    #expect(item.created == Date(timeIntervalSince1970: 1_800_000_000))
    #expect(item.done == false)
    #expect(storage.storedItems.last == item)
    #expect(viewModel.items.count == 3)
  }

  @Test("Add refuses an empty title and stores nothing", arguments: ["", "   ", "\n\t"])
  func addRefusesEmpty(title: String) throws {
    #expect(throws: TodoError.emptyTitle) { try makeViewModel().add(title: title) }
    #expect(storage.storedItems == TodoFixtures.twoItems)
  }

  @Test("Add accepts 200 characters and refuses 201")
  func addLengthLimit() throws {
    let viewModel = makeViewModel()
    #expect(throws: TodoError.titleTooLong(length: 201)) {
      try viewModel.add(title: String(repeating: "é", count: 201))
    }
    #expect(storage.storedItems == TodoFixtures.twoItems)
    try viewModel.add(title: String(repeating: "é", count: 200))
    #expect(storage.storedItems.count == 3)
  }

  @Test("Add refuses a few characters stacked with thousands of combining marks")
  func addScalarLimit() throws {
    let viewModel = makeViewModel()
    let title = String(repeating: "a", count: 199) + String(repeating: "\u{0301}", count: 30_000)
    #expect(title.count == 199)
    #expect(throws: TodoError.titleTooComplex(scalars: 30_199)) { try viewModel.add(title: title) }
    #expect(storage.storedItems == TodoFixtures.twoItems)
    // Up to four code points per character pass: accents, flags, short emoji sequences.
    try viewModel.add(title: String(repeating: "e\u{0301}\u{0323}", count: 200))
    try viewModel.add(title: String(repeating: "🇫🇷", count: 200))
    #expect(storage.storedItems.count == 4)
  }

  @Test(
    "Add refuses control characters, tabs and line breaks inside the title",
    arguments: [0x00, 0x07, 0x09, 0x0A, 0x0D, 0x1B, 0x7F, 0x9B] as [UInt32])
  func addRefusesControlCharacters(value: UInt32) throws {
    let scalar = try #require(Unicode.Scalar(value))
    let title = "before" + String(Character(scalar)) + "after"
    #expect(throws: TodoError.controlCharacter(value)) { try makeViewModel().add(title: title) }
    #expect(storage.storedItems == TodoFixtures.twoItems)
  }

  @Test(
    "Add refuses invisible format characters and line or paragraph separators inside the title",
    arguments: [
      0x202E, 0x202A, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x200B, 0x2060, 0xFEFF, 0x00AD, 0x2028, 0x2029,
      0xE0041,
    ] as [UInt32])
  func addRefusesInvisibleCharacters(value: UInt32) throws {
    let scalar = try #require(Unicode.Scalar(value))
    let title = "invoice " + String(Character(scalar)) + "gnp.exe"
    #expect(throws: TodoError.invisibleCharacter(value)) { try makeViewModel().add(title: title) }
    #expect(storage.storedItems == TodoFixtures.twoItems)
    #expect(TodoError.invisibleCharacter(value).description.contains(String(format: "(found U+%04X)", value)))
  }

  @Test(
    "Add refuses what shows nothing: a joiner that joins nothing, a run of joiners, other default-ignorable code points",
    arguments: [
      ("\u{200D}", 0x200D), ("\u{200C}\u{200C}", 0x200C), ("ok\u{200D}\u{200C}\u{200D}\u{200C}", 0x200C),
      ("\u{034F}", 0x034F), ("ok" + String(repeating: "\u{034F}", count: 700), 0x034F), ("\u{17B4}\u{17B5}", 0x17B4),
      ("a \u{200C}b", 0x200C),  // after a space
      ("a" + String(repeating: "\u{200D}\u{0301}", count: 3), 0x200D),  // joiners between combining marks
    ] as [(String, UInt32)])
  func addRefusesWhatShowsNothing(title: String, value: UInt32) throws {
    #expect(throws: TodoError.invisibleCharacter(value)) { try makeViewModel().add(title: title) }
    #expect(storage.storedItems == TodoFixtures.twoItems)
  }

  @Test(
    "Add accepts the joiners and tags that emoji and scripts need",
    arguments: [
      "👨\u{200D}👩\u{200D}👧 family", "🏳️\u{200D}🌈", "می\u{200C}خواهم", "❤\u{FE0F}\u{200D}🔥",
      "\u{0D28}\u{0D4D}\u{200D}",  // a Malayalam chillu in the older encoding: a joiner at the end
      "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} Scotland",
    ])
  func addAcceptsJoiners(title: String) throws {
    let viewModel = makeViewModel()
    #expect(try viewModel.add(title: title).title == title)
  }

  @Test(
    "Add refuses tags that are no subdivision flag: text hidden behind a flag",
    arguments: [
      // "ignore" in tags, with a tag space, behind a flag: shown as a bare 🏴.
      ("Buy milk 🏴\u{E0069}\u{E0067}\u{E006E}\u{E0020}\u{E006F}\u{E007F}", 0xE0069),
      ("🏴\u{E0047}\u{E0042}\u{E0053}\u{E0043}\u{E0054}\u{E007F}", 0xE0047),  // upper-case tags
      ("🏴\u{E0067}\u{E0062}\u{E007F}", 0xE0067),  // two tags: too short for a subdivision id
      ("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}", 0xE0067),  // no CANCEL TAG
      ("a\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", 0xE0067),  // not after 🏴
      // Well-formed tags of no flag a font draws: a bare 🏴 with "sendthe" behind it.
      ("🏴\u{E0073}\u{E0065}\u{E006E}\u{E0064}\u{E0074}\u{E0068}\u{E0065}\u{E007F}", 0xE0073),
      ("🏴\u{E0075}\u{E0073}\u{E0063}\u{E0061}\u{E007F}", 0xE0075),  // "usca": a real id, but drawn by no font
    ] as [(String, UInt32)])
  func addRefusesHiddenTags(title: String, value: UInt32) throws {
    #expect(throws: TodoError.invisibleCharacter(value)) { try makeViewModel().add(title: title) }
    #expect(storage.storedItems == TodoFixtures.twoItems)
  }

  @Test(
    "Add refuses a title made only of characters that look blank",
    arguments: [
      ("\u{3164}", 0x3164), ("\u{2800}\u{2800}\u{2800}", 0x2800), (" \u{3164} \u{FFA0} ", 0x3164),
      ("\u{115F}\u{1160}", 0x115F), ("\u{3164}\u{200D}\u{3164}", 0x3164), ("\u{2800}\u{200C}\u{2800}", 0x2800),
    ] as [(String, UInt32)])
  func addRefusesBlankLookingTitles(title: String, value: UInt32) throws {
    #expect(throws: TodoError.blankTitle(value)) { try makeViewModel().add(title: title) }
    #expect(storage.storedItems == TodoFixtures.twoItems)
    #expect(TodoError.blankTitle(value).description.contains(String(format: "(found U+%04X)", value)))
  }

  @Test("Add accepts blank-looking characters among visible text")
  func addAcceptsBlankLookingCharactersInText() throws {
    let viewModel = makeViewModel()
    for title in ["\u{3164}Buy milk", "⠁\u{2800}⠃", "\u{1100}\u{1160}"] {
      #expect(try viewModel.add(title: title).title == title)
    }
  }

  @Test(
    "Add refuses variation selectors that select nothing: hidden bytes behind a letter",
    arguments: [
      // A letter carrying the bytes "hi" as ideographic selectors: shows as a bare "a".
      ("a\u{E0158}\u{E0159}", 0xE0158),
      ("❤\u{FE0F}\u{FE0F}", 0xFE0F),  // a second selector on one base
      ("☺\u{FE0E}\u{E0100}", 0xE0100),  // a run of two kinds
      ("a\u{FE0F}", 0xFE0F),  // an emoji selector after a letter: 4 hidden bits each
      ("Buy milk\u{FE00}", 0xFE00),  // a standardized one after a Latin letter
      ("é\u{FE0F}", 0xFE0F), ("a \u{FE0F}", 0xFE0F),
      ("\u{FE0F}start", 0xFE0F),  // nothing before it
      ("\u{6F22}\u{E0100}\u{E0101}", 0xE0101),  // an ideograph takes one selector too
    ] as [(String, UInt32)])
  func addRefusesStrayVariationSelectors(title: String, value: UInt32) throws {
    #expect(throws: TodoError.strayVariationSelector(value)) { try makeViewModel().add(title: title) }
    #expect(storage.storedItems == TodoFixtures.twoItems)
    #expect(TodoError.strayVariationSelector(value).description.contains(String(format: "(found U+%04X", value)))
  }

  @Test("Add accepts one variation selector after a character it varies")
  func addAcceptsVariationSequences() throws {
    let viewModel = makeViewModel()
    // Emoji and text presentation, a keycap, a flag in a ZWJ sequence, an ideographic variant.
    for title in [
      "❤\u{FE0F} tea", "☺\u{FE0E}", "1\u{FE0F}\u{20E3}", "🏳\u{FE0F}\u{200D}🌈", "\u{845B}\u{E0100}",
      "a \u{2229}\u{FE00} b",  // INTERSECTION with serifs, a standardized variant of a math symbol
      "\u{1820}\u{180B}",  // a Mongolian letter with a free variation selector
    ] {
      #expect(try viewModel.add(title: title).title == title)
    }
  }

  @Test("Add accepts the subdivision flags of England and Wales")
  func addAcceptsSubdivisionFlags() throws {
    let viewModel = makeViewModel()
    for title in [
      "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}",
      "🏴\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F}",
    ] {
      #expect(try viewModel.add(title: title).title == title)
    }
  }

  @Test(
    "Add refuses code points with no agreed meaning: noncharacters, private use, unassigned",
    arguments: [0xFFFE, 0xFDD0, 0x10FFFF, 0xE000, 0x0378] as [UInt32])
  func addRefusesUnusableCharacters(value: UInt32) throws {
    // (Built at run time: the compiler refuses a noncharacter in a string literal.)
    let title = "a" + String(Character(try #require(Unicode.Scalar(value)))) + "b"
    #expect(throws: TodoError.unusableCharacter(value)) { try makeViewModel().add(title: title) }
    #expect(storage.storedItems == TodoFixtures.twoItems)
    #expect(TodoError.unusableCharacter(value).description.contains(String(format: "(found U+%04X:", value)))
  }

  @Test("Toggle and setDone change one item")
  func toggle() throws {
    let viewModel = makeViewModel()
    #expect(try viewModel.toggle(id: TodoFixtures.first.id).done == true)
    #expect(try viewModel.setDone(false, id: TodoFixtures.second.id).done == false)
    #expect(storage.storedItems.map(\.done) == [true, false])
  }

  @Test("Delete removes one item")
  func delete() throws {
    let viewModel = makeViewModel()
    try viewModel.delete(id: TodoFixtures.first.id)
    #expect(storage.storedItems == [TodoFixtures.second])
  }

  @Test("An unknown id is refused and nothing changes")
  func unknownID() throws {
    let viewModel = makeViewModel()
    let unknown = UUID()
    #expect(throws: TodoError.notFound(unknown)) { try viewModel.toggle(id: unknown) }
    #expect(throws: TodoError.notFound(unknown)) { try viewModel.setDone(true, id: unknown) }
    #expect(throws: TodoError.notFound(unknown)) { try viewModel.delete(id: unknown) }
    #expect(storage.storedItems == TodoFixtures.twoItems)
  }

  @Test("Two view models on one storage never lose each other's adds")
  func concurrentAdds() async throws {
    let storage = FakeStorage()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<40 {
        group.addTask {
          try LiveTodoListViewModel(storage: storage).add(title: "Item \(index)")
        }
      }
      try await group.waitForAll()
    }
    #expect(storage.storedItems.count == 40)
  }
}

@Suite("HTML")
struct HTMLTests {
  @Test("Escape replaces the five special characters and shows control characters as U+FFFD")
  func escape() {
    #expect(
      HTML.escape(#"<script>alert("x") & 'y'</script>"#)
        == "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;")
    #expect(HTML.escape("plain ✓") == "plain ✓")
    #expect(HTML.escape("a\u{0}b\u{1B}c\u{7F}d\u{85}e") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e")
    #expect(HTML.escape("tab\tline\nfeed\u{0C}cr\r") == "tab\tline\nfeed\u{0C}cr\r")
    // Swift refuses noncharacters in a literal: made from their code points.
    let noncharacters = ([0xFDD0, 0xFFFE, 0x10FFFF] as [UInt32]).compactMap(Unicode.Scalar.init).map(String.init)
    #expect(noncharacters.count == 3)
    #expect(HTML.escape("a" + noncharacters.joined(separator: "b")) == "a\u{FFFD}b\u{FFFD}b\u{FFFD}")
  }

  @Test("A rendered screen shows user text as text")
  func screenEscapes() throws {
    let storage = FakeStorage()
    let viewModel = LiveTodoListViewModel(storage: storage)
    try viewModel.add(title: "<script>alert(1)</script>")
    let html = TodoListScreen(
      style: DIStyle(id: "test", name: "Test", summary: "A test.", gives: "-", costs: "-", pickWhen: "-"),
      viewModel: viewModel
    )
    .render()
    #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    #expect(!html.contains("<script>"))
  }

  @Test("The error message is shown escaped")
  func errorMessage() {
    let screen = TodoListScreen(
      style: DIStyle(id: "test", name: "Test", summary: "A test.", gives: "-", costs: "-", pickWhen: "-"),
      viewModel: LiveTodoListViewModel(storage: FakeStorage())
    )
    let html = screen.render(error: "<b>bad</b>")
    // Not about the title: the message itself takes the focus.
    #expect(
      html.contains(
        #"<p class="error" role="alert" id="error-test" tabindex="-1" autofocus>&lt;b&gt;bad&lt;/b&gt;</p>"#))
    #expect(!html.contains("aria-invalid"))
    #expect(html.contains("Nothing to do."))
  }

  @Test("A page past the list's end says the page is empty, not the list")
  func pagePastTheEnd() {
    let screen = TodoListScreen(
      style: DIStyle(id: "test", name: "Test", summary: "A test.", gives: "-", costs: "-", pickWhen: "-"),
      viewModel: LiveTodoListViewModel(storage: FakeStorage())
    )
    let past = screen.render(
      page: TodoPage(items: [], next: nil, total: 50, done: 0), isFirst: false, link: { _ in "/?tab=test" },
      returnTo: "/?tab=test")
    #expect(past.contains("No items on this page any more."))
    #expect(!past.contains("Nothing to do."))
    #expect(past.contains("« First page"))
    let empty = screen.render(
      page: TodoPage(items: [], next: nil, total: 0, done: 0), isFirst: true, link: { _ in "/?tab=test" },
      returnTo: "/?tab=test")
    #expect(empty.contains("Nothing to do."))
  }
}
