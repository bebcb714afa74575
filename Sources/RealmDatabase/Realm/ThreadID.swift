import Foundation

/// The calling thread's id, from `pthread_self` (`pthread_t` is an integer on Linux, a pointer on
/// Darwin). Used where the library must tell "this thread" from "another thread": the debug
/// `EntryGuard`, the writer a file's coordinator records (`FileCoordinator.writeBegan`), and the
/// host's per-user lock (which refuses a nested request on the thread holding it).
public enum ThreadID {
    public static var current: UInt {
        #if os(Linux)
            return UInt(pthread_self())
        #else
            return UInt(bitPattern: pthread_self())
        #endif
    }
}
