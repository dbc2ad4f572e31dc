/// The mutations of the fuzz tests: seeded, so that a failing input can be found again from the seed and the round
/// in the message.
enum ByteMutations {
    /// A seeded SplitMix64.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// `input` with one to four edits at random places: a byte replaced, removed or inserted, or the rest cut off (with
    /// `replacingOnly`, bytes replaced only: the lengths and the structure they encode stay, so checks past the
    /// parsing are reached).
    static func mutate(_ input: [UInt8], replacingOnly: Bool = false, using random: inout SplitMix) -> [UInt8] {
        var input = input
        for _ in 0..<Int.random(in: 1...4, using: &random) where !input.isEmpty {
            let at = Int.random(in: 0..<input.count, using: &random)
            switch replacingOnly ? 0 : Int.random(in: 0..<4, using: &random) {
            case 0: input[at] = UInt8.random(in: 0...255, using: &random)
            case 1: input.remove(at: at)
            case 2: input.insert(UInt8.random(in: 0...255, using: &random), at: at)
            default: input = Array(input.prefix(at))
            }
        }
        return input
    }
}
