print("realm-crash-writer")
