import CSQLite
import RealmDatabase

/// The classes the benchmarks use.
///
/// `Dog` has one property of each common kind (string, int, optional string, double) and no
/// primary key, so the numbers measure the object layer rather than a uniqueness lookup.
/// `Person.dogs` is a list of links, stored in `list_Person_dogs` (see StorageLayout).
enum BenchSchema {
    /// Dog's properties in declared order: the column order of `class_Dog` too.
    static let dogProperties = ["name", "age", "breed", "weight"]

    static func schema(indexedAge: Bool = false) -> Schema {
        Schema([
            ObjectSchema(
                className: "Dog",
                properties: [
                    Property(name: "name", type: .string),
                    Property(name: "age", type: .int, isIndexed: indexedAge),
                    Property(name: "breed", type: .string, isOptional: true),
                    Property(name: "weight", type: .double),
                ]),
            ObjectSchema(
                className: "Person",
                properties: [
                    Property(name: "name", type: .string),
                    Property(name: "dogs", type: .object, objectClassName: "Dog", collection: .list),
                ]),
        ])
    }

    /// The raw baseline's statements, written against the table `StorageLayout` creates for Dog.
    static let insertDogSQL = "INSERT INTO \"class_Dog\" (\"name\", \"age\", \"breed\", \"weight\") VALUES (?, ?, ?, ?)"
    /// Binds one dog into the prepared `BenchSchema.insertDogSQL` and steps it: the raw side of
    /// every insert workload. Returns SQLite's result code.
    @inline(__always)
    static func insertDog(_ dog: DogValues, with s: OpaquePointer?) -> Int32 {
        sqlite3_bind_text(s, 1, dog.name, -1, SQLITE_TRANSIENT)
        sqlite3_bind_int64(s, 2, dog.age)
        if let breed = dog.breed {
            sqlite3_bind_text(s, 3, breed, -1, SQLITE_TRANSIENT)
        } else {
            sqlite3_bind_null(s, 3)
        }
        sqlite3_bind_double(s, 4, dog.weight)
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        return rc
    }

    static let selectDogsSQL =
        "SELECT \"_key\", \"name\", \"age\", \"breed\", \"weight\" FROM \"class_Dog\" ORDER BY \"_key\""

    /// DoggoDB (Tests/RealmDatabaseTests/TestSupport.swift, version 1): the 5-class schema of the
    /// `open` workload, so that opening checks a realistic schema with links, lists and backlinks.
    static func doggoSchema() -> Schema {
        Schema([
            ObjectSchema(
                className: "Dog",
                properties: [
                    Property(name: "_id", type: .uuid, isPrimaryKey: true),
                    Property(name: "name", type: .string),
                    Property(name: "breed", type: .string),
                    Property(name: "weight", type: .int),
                    Property(name: "favoriteToy", type: .object, objectClassName: "DogToy"),
                    Property(name: "profileImageUrl", type: .string, isOptional: true),
                    Property(
                        name: "owners", type: .linkingObjects, objectClassName: "Person", linkOriginPropertyName: "dogs"
                    ),
                ]),
            ObjectSchema(
                className: "DogToy",
                properties: [
                    Property(name: "_id", type: .objectId, isPrimaryKey: true),
                    Property(name: "name", type: .string),
                ]),
            ObjectSchema(
                className: "Person",
                properties: [
                    Property(name: "_id", type: .objectId, isPrimaryKey: true),
                    Property(name: "firstName", type: .string),
                    Property(name: "lastName", type: .string),
                    Property(name: "dogs", type: .object, objectClassName: "Dog", collection: .list),
                ]),
            ObjectSchema(
                className: "Company",
                properties: [
                    Property(name: "_id", type: .objectId, isPrimaryKey: true),
                    Property(name: "companyName", type: .string),
                    Property(name: "employees", type: .object, objectClassName: "Employee", collection: .list),
                    Property(name: "dogs", type: .object, objectClassName: "Dog", collection: .list),
                ]),
            ObjectSchema(
                className: "Employee",
                properties: [
                    Property(name: "name", type: .string),
                    Property(name: "dogs", type: .object, objectClassName: "Dog", collection: .list),
                ]),
        ])
    }
}

/// The values of one generated dog. Deterministic (a fixed LCG), so every run and both sides
/// store and read exactly the same data.
struct DogValues {
    var name: String
    var age: Int64
    var breed: String?
    var weight: Double

    /// First names with several initials: about 3 in 16 start with "B", which the queries look for.
    static let names = [
        "Bella", "Max", "Buddy", "Luna", "Charlie", "Bailey", "Rocky", "Daisy",
        "Molly", "Cooper", "Coco", "Sadie", "Toby", "Lola", "Oscar", "Zeus",
    ]
    static let breeds = ["Beagle", "Labrador", "Poodle", "Boxer", "Husky", "Collie", "Pug"]

    /// The dog number `i`: ages `0..<ages`, every third dog without a breed.
    init(_ i: Int, ages: Int64 = 20) {
        var x = UInt64(i) &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        x ^= x >> 29
        name = "\(DogValues.names[Int(x % 16)]) \(i)"
        age = Int64((x >> 8) % UInt64(ages))
        breed = i % 3 == 0 ? nil : DogValues.breeds[Int((x >> 16) % 7)]
        weight = Double((x >> 24) % 600) / 10 + 2
    }

    /// The same values as a dictionary for `Realm.create` / `Results.append`.
    var realmValue: RealmValue {
        [
            "name": .string(name), "age": .int(age), "breed": breed.map { .string($0) } ?? .null,
            "weight": .double(weight),
        ]
    }

    /// Pre-generated values for `n` dogs, made before timing so neither side pays for formatting.
    static func batch(_ n: Int) -> [DogValues] { (0..<n).map { DogValues($0) } }
}

/// A checksum both sides compute over what they read, so a side that skipped work (or read
/// different data) shows up as a mismatch instead of a flattering time.
enum Checksum {
    static func of(_ value: RealmValue) -> Int64 {
        switch value {
        case .null: return 0
        case .string(let s): return Int64(s.utf8.count)
        case .int(let v): return v
        case .double(let v): return Int64(v * 10)
        case .bool(let v): return v ? 1 : 0
        default: return 1
        }
    }

    static func of(_ s: String?) -> Int64 { s.map { Int64($0.utf8.count) } ?? 0 }
    static func of(_ v: Double) -> Int64 { Int64(v * 10) }
}
