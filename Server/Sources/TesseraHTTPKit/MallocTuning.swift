#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// glibc's allocator settings for a long-running server process (`tessera serve`, `tessera node`).
///
/// By default glibc hands the free memory at the top of a thread's heap back to the kernel as soon as
/// it exceeds 128 KiB (`madvise(MADV_DONTNEED)`), and a server under load frees and allocates that
/// much again many times a second: each hand-back flushed the TLB on every core (an inter-processor
/// interrupt) and each page taken again faulted. In a profile of TOTP verifications at c=64 that was
/// 7 % of the server's CPU in `madvise` and 3 % in page faults. With these thresholds a thread's heap
/// keeps up to ``trimThreshold`` of free memory, and blocks under ``mmapThreshold`` come from the
/// heaps instead of a `mmap` and `munmap` each. An idle process's memory is unchanged: the thresholds
/// only decide what is kept after a burst of work.
///
/// An operator's own `GLIBC_TUNABLES` with malloc settings wins: then nothing is changed.
public enum MallocTuning {
    /// Free memory a heap keeps at its top before glibc gives it back (glibc's default: 128 KiB).
    public static let trimThreshold: Int32 = 4 << 20
    /// Blocks this large or larger get their own `mmap` (glibc's default: 128 KiB, then adapted).
    public static let mmapThreshold: Int32 = 1 << 20

    /// Whether to apply the thresholds: not when `GLIBC_TUNABLES` sets any `glibc.malloc.` tunable.
    public static func shouldApply(environment: [String: String]) -> Bool {
        !(environment["GLIBC_TUNABLES"]?.contains("glibc.malloc.") ?? false)
    }

    /// Sets both thresholds with `mallopt` unless ``shouldApply(environment:)`` says not to; true when
    /// glibc took both. On other C libraries it does nothing and answers false.
    @discardableResult
    public static func apply(environment: [String: String]) -> Bool {
        guard shouldApply(environment: environment) else { return false }
        #if canImport(Glibc)
        // Swift's Glibc module does not import <malloc.h>: mallopt is looked up in the C library.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "mallopt") else { return false }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        // M_TRIM_THRESHOLD is -1 and M_MMAP_THRESHOLD is -3 in <malloc.h>; mallopt answers 1 on success.
        return mallopt(-1, trimThreshold) == 1 && mallopt(-3, mmapThreshold) == 1
        #else
        return false
        #endif
    }
}
