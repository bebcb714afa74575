import RealmDatabase

// realm-host: the command line and the REPL of RealmHost. See RealmHostCommand.swift.

// A write waiting for another connection's lock (a write left open at another prompt) says so on
// standard error, and a Ctrl-C ends the wait where the command takes Ctrl-C (the REPL, `run`).
LockWaitPolicy.current.announce = { StandardStreams.errorLine($0) }
LockWaitPolicy.current.interrupts = { Int(sigintCounter.pointee) }
RealmHostCommand.main()
