public import Foundation

/// Why the to-do list refused a change.
public enum TodoError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The title is empty or only whitespace.
  case emptyTitle
  /// The title has more than ``TodoTitle/maximumLength`` characters.
  case titleTooLong(length: Int)
  /// The title is made of more than ``TodoTitle/maximumScalars`` Unicode scalars: few characters,
  /// each stacked with many combining marks.
  case titleTooComplex(scalars: Int)
  /// The title contains a control character (Unicode category Cc: NUL, ESC, tab, newline, …).
  case controlCharacter(UInt32)
  /// The title contains an invisible format character (Unicode category Cf, such as the
  /// right-to-left override U+202E or the zero width space U+200B) or a line or paragraph
  /// separator (Zl, Zp), which would change how the title looks rather than what it says.
  case invisibleCharacter(UInt32)
  /// The title has a variation selector that selects nothing: one right after another selector
  /// or at the start, or one after a character of a kind it cannot vary (an emoji selector after
  /// no emoji, an ideographic one after no CJK ideograph). Such selectors show as nothing, and
  /// can carry hidden bytes behind ordinary letters.
  case strayVariationSelector(UInt32)
  /// The title has a code point with no agreed meaning: a noncharacter (U+FFFE), a private-use
  /// one (U+E000) or one Unicode has not assigned (as far as this program's Unicode data knows).
  /// Each device shows it its own way, or not at all.
  case unusableCharacter(UInt32)
  /// The title is made only of characters that look blank though they are no whitespace (such as
  /// U+3164 HANGUL FILLER or U+2800 BRAILLE PATTERN BLANK), so the item would show no text.
  case blankTitle(UInt32)
  /// No item has this id.
  case notFound(UUID)
  /// The list already has ``TodoList/maximumItems`` items (or the store's own limit), so a new
  /// one would let a client fill the disk and make every whole-list read larger without bound.
  case listFull(maximum: Int)

  public var description: String {
    switch self {
    case .emptyTitle:
      "The title must not be empty."
    case .titleTooLong(let length):
      "The title has \(length) characters; at most \(TodoTitle.maximumLength) are allowed."
    case .titleTooComplex(let scalars):
      "The title is made of \(scalars) Unicode code points (letters plus combining marks); "
        + "at most \(TodoTitle.maximumScalars) are allowed."
    case .controlCharacter(let value):
      "The title must not contain control characters (found U+\(TodoTitle.hex(value))); "
        + "tabs and line breaks are not allowed either."
    case .invisibleCharacter(let value):
      "The title must not contain invisible formatting characters such as direction overrides "
        + "(found U+\(TodoTitle.hex(value))), which change how the title looks."
    case .strayVariationSelector(let value):
      "The title must not contain a variation selector that selects nothing (found U+\(TodoTitle.hex(value)) "
        + "after another selector, at the start or after a character it cannot vary); such selectors are invisible."
    case .unusableCharacter(let value):
      "The title must not contain a code point with no agreed meaning (found U+\(TodoTitle.hex(value)): "
        + "a noncharacter, a private-use or an unassigned one), which each device shows its own way."
    case .blankTitle(let value):
      "The title must show some text: it has only characters that look blank (found U+\(TodoTitle.hex(value)))."
    case .notFound(let id):
      "No to-do item has the id \(id.uuidString)."
    case .listFull(let maximum):
      "The list already has \(maximum) items, the most it may have; delete some to add more."
    }
  }
}

/// The limits of the whole list.
public enum TodoList {
  /// The most items the list may have: a client on the network cannot grow the store (and every
  /// whole-list read) without bound.
  public static let maximumItems = 10_000
}

/// The rules for a to-do title.
///
/// After surrounding whitespace and line breaks are trimmed, a title has 1 to ``maximumLength``
/// characters (grapheme clusters), at most ``maximumScalars`` Unicode scalars (so a few letters
/// cannot carry thousands of combining marks), no control character (category Cc): NUL
/// would cut the title short in SQLite, ESC sequences would reach a terminal, and tabs and line
/// breaks inside a one-line title are refused rather than silently changed; and no invisible
/// format character (category Cf) or line or paragraph separator (Zl, Zp): a direction override
/// makes `invoice \u{202E}gnp.exe` look like `invoice exe.png`. The joiners U+200D and U+200C
/// that emoji sequences and some scripts need are allowed, and so are the tag characters of the
/// subdivision flags emoji fonts draw (🏴, the tags of `gbsct`, U+E007F: the flag of Scotland);
/// other tags, which show as a bare flag with text hidden behind it, are refused. A joiner must
/// follow a character that is neither a joiner nor whitespace and precede no combining mark but a
/// virama, and other code points that show nothing (default-ignorable ones, such as U+034F
/// COMBINING GRAPHEME JOINER) are refused. A variation selector must follow a character of the
/// kind it varies, one at a time (on an ordinary letter it shows as nothing and can carry hidden
/// bits); noncharacters, private-use and unassigned code points are refused; and a title must not
/// be made only of characters that look blank, such as U+3164 HANGUL FILLER.
public enum TodoTitle {
  /// The longest title allowed, in characters.
  public static let maximumLength = 200

  /// The most Unicode scalars a title may have: four per allowed character, plenty for accents,
  /// emoji sequences and flags.
  public static let maximumScalars = 4 * maximumLength

  /// The title with surrounding whitespace trimmed, or an error if it breaks a rule.
  public static func validate(_ title: String) throws(TodoError) -> String {
    let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else { throw .emptyTitle }
    if let control = trimmed.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
      throw .controlCharacter(control.value)
    }
    if let invisible = firstInvisibleCharacter(in: trimmed) {
      throw .invisibleCharacter(invisible.value)
    }
    if let selector = firstStrayVariationSelector(in: trimmed) {
      throw .strayVariationSelector(selector.value)
    }
    if let unusable = trimmed.unicodeScalars.first(where: {
      $0.properties.generalCategory == .unassigned || $0.properties.generalCategory == .privateUse
    }) {
      throw .unusableCharacter(unusable.value)
    }
    // Blank-looking letters and whitespace, with what shows nothing (joiners, selectors) between.
    if trimmed.unicodeScalars.allSatisfy({
      $0.properties.isWhitespace || looksBlank($0) || $0.properties.isDefaultIgnorableCodePoint
    }) {
      let blank = trimmed.unicodeScalars.first(where: looksBlank) ?? trimmed.unicodeScalars.first(where: isJoiner)
      throw .blankTitle((blank ?? trimmed.unicodeScalars[trimmed.unicodeScalars.startIndex]).value)
    }
    let scalars = trimmed.unicodeScalars.count
    guard scalars <= maximumScalars else {
      let length = trimmed.count
      throw length > maximumLength ? .titleTooLong(length: length) : .titleTooComplex(scalars: scalars)
    }
    guard trimmed.count <= maximumLength else { throw .titleTooLong(length: trimmed.count) }
    return trimmed
  }

  /// The first scalar of `text` that no emoji or script needs and that shows nothing: in
  /// category Cf, Zl or Zp, or any other default-ignorable code point (U+034F COMBINING GRAPHEME
  /// JOINER, the Khmer inherent vowels U+17B4 and U+17B5, unassigned ones) but the variation
  /// selectors and blank-looking letters, which have rules of their own. A joiner (U+200D,
  /// U+200C) joins the character before it to what follows: one at the start, right after
  /// another or after whitespace joins nothing, and a run of them would hide bytes behind a
  /// letter; nor is it followed by a combining mark other than a virama (the Sinhala touching
  /// letters put one there), or each mark it carries could hide a joiner.
  static func firstInvisibleCharacter(in text: String) -> Unicode.Scalar? {
    var previous: Unicode.Scalar?
    for character in text {
      for scalar in character.unicodeScalars {
        defer { previous = scalar }
        if let before = previous, isJoiner(before), isMark(scalar), scalar.properties.canonicalCombiningClass != .virama
        {
          return before
        }
        if isJoiner(scalar) {
          guard let before = previous, !isJoiner(before), !before.properties.isWhitespace else { return scalar }
          continue
        }
        switch scalar.properties.generalCategory {
        case .format:
          if isSubdivisionFlag(character) { continue }
          return scalar
        case .lineSeparator, .paragraphSeparator:
          return scalar
        default:
          if scalar.properties.isDefaultIgnorableCodePoint, !isVariationSelector(scalar), !looksBlank(scalar) {
            return scalar
          }
        }
      }
    }
    return nil
  }

  /// Whether `scalar` is a combining mark (category Mn, Mc or Me).
  static func isMark(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .spacingMark, .enclosingMark: true
    default: false
    }
  }

  /// Whether `scalar` is ZERO WIDTH JOINER or ZERO WIDTH NON-JOINER.
  static func isJoiner(_ scalar: Unicode.Scalar) -> Bool { scalar == "\u{200D}" || scalar == "\u{200C}" }

  /// Whether `character` is one of the subdivision flags emoji fonts draw (the RGI ones of
  /// UTS #51: England, Scotland, Wales): 🏴, the tags of the subdivision id (`gbsct`), then
  /// CANCEL TAG. Any other run of tags shows as a bare black flag with invisible text behind it
  /// (seven letters behind each flag), so its tags are refused like any other format character.
  static func isSubdivisionFlag(_ character: Character) -> Bool {
    let scalars = Array(character.unicodeScalars)
    guard scalars.count == 7, scalars.first == "\u{1F3F4}", scalars.last == "\u{E007F}" else { return false }
    let tags = scalars.dropFirst().dropLast()
    // Tag letters a to z (U+E0061 to U+E007A) stand for the ASCII letters 0xE0000 below them.
    guard tags.allSatisfy({ (0xE0061...0xE007A).contains($0.value) }) else { return false }
    var id = ""
    for tag in tags { id.unicodeScalars.append(Unicode.Scalar(UInt8(tag.value - 0xE0000))) }
    return drawnSubdivisions.contains(id)
  }

  /// The subdivision ids of the flags emoji fonts draw.
  static let drawnSubdivisions: Set<String> = ["gbeng", "gbsct", "gbwls"]

  /// The first variation selector of `text` that selects nothing: one after another selector or
  /// with nothing before it, or one after a character of a kind it cannot vary. The emoji
  /// selectors (text or emoji style, U+FE0E and U+FE0F) vary an emoji; the ideographic ones (VS17
  /// to VS256, U+E0100 to U+E01EF) a CJK ideograph; the other standardized ones (U+FE00 to
  /// U+FE0D) a mathematical symbol or a letter of a script without case (CJK compatibility
  /// ideographs, Myanmar, Phags-pa); the Mongolian ones a Mongolian letter. A base character takes
  /// one selector; each further one, or one after a letter such as `a`, shows as nothing and can
  /// carry hidden bits.
  static func firstStrayVariationSelector(in text: String) -> Unicode.Scalar? {
    var previous: Unicode.Scalar?
    for scalar in text.unicodeScalars {
      if isVariationSelector(scalar) {
        guard let base = previous, !isVariationSelector(base), canVary(base, with: scalar) else { return scalar }
      }
      previous = scalar
    }
    return nil
  }

  /// Whether `selector` can vary `base` (see ``firstStrayVariationSelector(in:)``).
  static func canVary(_ base: Unicode.Scalar, with selector: Unicode.Scalar) -> Bool {
    switch selector.value {
    case 0xFE0E, 0xFE0F: base.properties.isEmoji
    case 0xE0100...0xE01EF: base.properties.isUnifiedIdeograph
    case 0x180B...0x180D, 0x180F: (0x1800...0x18AF).contains(base.value)
    default: [.mathSymbol, .otherLetter].contains(base.properties.generalCategory)
    }
  }

  /// Whether `scalar` is a variation selector: VS1 to VS16, VS17 to VS256, or a Mongolian free
  /// variation selector.
  static func isVariationSelector(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0xFE00...0xFE0F, 0xE0100...0xE01EF, 0x180B...0x180D, 0x180F: true
    default: false
    }
  }

  /// Whether `scalar` is a letter or symbol that draws nothing, though it is no whitespace: the
  /// Hangul fillers and the blank braille pattern. Inside text they have their uses (a filler
  /// completes an old Hangul syllable); a title made only of them shows nothing.
  static func looksBlank(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800: true
    default: false
    }
  }

  /// `value` as four or more uppercase hex digits, as in `U+001B`.
  static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }
}
