import Testing
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// Which node answers the server checks: no more at a time than the quorum still needs.
@Suite("Node quorum: which answers are checked")
struct QuorumRoundTests {
    @Test("quorum 2: two answers are checked at once, a third waits and is dropped once both verified and the round settled")
    func thirdDropped() async {
        let (round, third) = await twoCheckingOneWaiting()
        round.finished(verified: true)
        round.finished(verified: true)
        #expect(round.waitingCount == 1)  // two verified make the quorum: no third check
        round.settle()
        #expect(await third.value == false)
        #expect(await round.admit() == false)  // answers after the outcome are not checked
    }

    @Test("quorum 2: a failed check lets the waiting answer be checked instead")
    func failureAdmitsWaiting() async {
        let (round, third) = await twoCheckingOneWaiting()
        round.finished(verified: false)
        #expect(await third.value == true)
        #expect(round.waitingCount == 0)
        // One verified and one being checked: a fourth answer waits again.
        round.finished(verified: true)
        let fourth = Task { await round.admit() }
        #expect(await eventually { round.waitingCount == 1 })
        round.finished(verified: false)
        #expect(await fourth.value == true)
    }

    @Test("quorum 1: one check at a time; a settled round drops every waiting answer")
    func settleDropsAll() async {
        let round = QuorumRound(quorum: 1)
        #expect(await round.admit())
        let waiting = (0..<3).map { _ in Task { await round.admit() } }
        #expect(await eventually { round.waitingCount == 3 })
        round.settle()
        for task in waiting { #expect(await task.value == false) }
        #expect(round.isSettled)
    }

    /// A quorum-2 round with two answers being checked and a third waiting for admission.
    private func twoCheckingOneWaiting() async -> (QuorumRound, Task<Bool, Never>) {
        let round = QuorumRound(quorum: 2)
        #expect(await round.admit())
        #expect(await round.admit())
        let third = Task { await round.admit() }
        #expect(await eventually { round.waitingCount == 1 })
        return (round, third)
    }
}
