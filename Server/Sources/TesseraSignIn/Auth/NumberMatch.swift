/// Number matching against push fatigue: the relying party shows ``number``; the device offers
/// ``choices`` and the approval must carry the one the user sees. Stored with the channel.
package struct NumberMatch: Sendable, Equatable {
    /// The two digits (10–99) the relying party or the hosted page shows.
    package var number: String
    /// Three distinct two-digit numbers, ``number`` among them at a random place; nothing marks it.
    package var choices: [String]

    package init(
        number: String,
        choices: [String]
    ) {
        self.number = number
        self.choices = choices
    }

    /// Draws the number and two distinct decoys from `random` (uniform, no modulo bias), and puts the
    /// number at a random place among them.
    package static func draw(_ random: RandomSource) -> NumberMatch {
        var drawn: [UInt32] = []
        while drawn.count < 3 {
            let value = 10 + random.uniform(below: 90)
            if !drawn.contains(value) { drawn.append(value) }
        }
        var choices = drawn.dropFirst().map(String.init)
        choices.insert(String(drawn[0]), at: Int(random.uniform(below: 3)))
        return NumberMatch(number: String(drawn[0]), choices: choices)
    }

    /// Whether `answer` is the number, compared in constant time.
    package func accepts(_ answer: String?) -> Bool {
        guard let answer else { return false }
        return constantTimeEquals(Array(answer.utf8), Array(number.utf8))
    }
}
