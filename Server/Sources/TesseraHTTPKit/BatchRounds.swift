/// The rounds in which a batch's requests run when each statement may touch a key once (an upsert changes a row
/// once per statement; a nonce written twice in one INSERT cannot tell which copy was new): each round holds the
/// first request of each key not yet run, in the batch's order, so a key's later request runs after its earlier
/// one, as if each were alone.
package enum BatchRounds {
    /// The indices of `keys` in rounds.
    package static func split<Key: Hashable>(_ keys: [Key]) -> [[Int]] {
        var rounds: [[Int]] = []
        var pending = Array(keys.indices)
        while !pending.isEmpty {
            var seen = Set<Key>(), round: [Int] = [], later: [Int] = []
            for index in pending {
                if seen.insert(keys[index]).inserted { round.append(index) } else { later.append(index) }
            }
            rounds.append(round)
            pending = later
        }
        return rounds
    }
}
