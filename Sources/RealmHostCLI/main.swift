print("realm-host")
