// realm-host: the command line and the REPL of RealmHost. See RealmHostCommand.swift.
RealmHostCommand.main()
