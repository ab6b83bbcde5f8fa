/// Names inside sentences, isolated for the Unicode bidirectional algorithm (FSI … PDI, the
/// plain-text `<bdi>`): a right-to-left name reads right, and a stray override in it (U+202E)
/// ends at the name instead of reversing the words after it.
enum Bidi {
    static func isolated(_ text: String) -> String { "\u{2068}" + text + "\u{2069}" }
}
