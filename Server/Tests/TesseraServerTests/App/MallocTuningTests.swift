#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import TesseraServer
import TesseraServerTestSupport

/// glibc's thresholds for a server process: set at start, unless the operator's GLIBC_TUNABLES sets its own.
@Suite("Malloc tuning")
struct MallocTuningTests {
    @Test("an operator's GLIBC_TUNABLES with malloc settings is left alone; other tunables are not")
    func operatorWins() {
        #expect(MallocTuning.shouldApply(environment: [:]))
        #expect(MallocTuning.shouldApply(environment: ["GLIBC_TUNABLES": "glibc.rtld.optional_static_tls=2048"]))
        #expect(!MallocTuning.shouldApply(environment: ["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=131072"]))
        #expect(!MallocTuning.apply(environment: ["GLIBC_TUNABLES": "glibc.rtld.x=1:glibc.malloc.arena_max=2"]))
    }

    #if canImport(Glibc)
    @Test("glibc takes both thresholds, and a block under the mmap threshold then comes from a heap, not its own mapping")
    func applied() throws {
        #expect(MallocTuning.apply(environment: [:]))
        // A block with its own mapping is whole pages (less the 16-byte header); a heap block is the size
        // asked for rounded to 16 bytes. 512 KiB + 1 byte is over glibc's default threshold of 128 KiB.
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        let symbol = try #require(dlsym(dlopen(nil, RTLD_NOW), "malloc_usable_size"))
        let usableSize = unsafeBitCast(symbol, to: UsableSize.self)
        let size = 512 * 1024 + 1
        let block = try #require(malloc(size))
        defer { free(block) }
        let usable = usableSize(block)
        #expect(usable >= size && usable < size + 32, "usable size \(usable): the block was mapped on its own")
    }
    #endif
}
