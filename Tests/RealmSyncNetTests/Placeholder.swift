import XCTest

@testable import RealmSyncNet
