extension StringProtocol {
    /// Whether the string starts with `prefix` (lower-case ASCII), ASCII letters compared without
    /// case: the media-type check of each JSON or form body, which `lowercased().hasPrefix(_:)` did
    /// by building a lower-cased copy first. Only ASCII letters fold: `lowercased()` folds no
    /// other character onto an ASCII letter of a media type.
    public func hasPrefix(ignoringASCIICase prefix: StaticString) -> Bool {
        prefix.withUTF8Buffer { prefix in
            var bytes = utf8.makeIterator()
            for expected in prefix {
                guard let byte = bytes.next() else { return false }
                let folded = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
                if folded != expected { return false }
            }
            return true
        }
    }
}
