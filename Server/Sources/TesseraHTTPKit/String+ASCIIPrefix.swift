extension String {
    /// Whether the string starts with `prefix` (lower-case ASCII), ASCII letters compared without
    /// case: the media-type check of each JSON or form body, which `lowercased().hasPrefix(_:)` did
    /// by building a lower-cased copy first. Only ASCII letters fold: `lowercased()` folds no
    /// other character onto an ASCII letter of a media type.
    public func hasPrefix(ignoringASCIICase prefix: StaticString) -> Bool {
        var text = self
        return text.withUTF8 { bytes in
            prefix.withUTF8Buffer { prefix in
                guard bytes.count >= prefix.count else { return false }
                for index in 0..<prefix.count {
                    let byte = bytes[index]
                    let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                    if folded != prefix[index] { return false }
                }
                return true
            }
        }
    }
}
