import HeadsUpData
import Testing

@Suite("CheckedNumber")
struct CheckedNumberTests {
    @Test func numbersFromOutsideAreFiniteAndInRangeOrRefusedSayingWhy() throws {
        #expect(try CheckedNumber.double(" 52.5\n", in: 0...100, what: "rate") == 52.5)
        for (text, problem) in [
            ("", CheckedNumberError.Problem.notANumber), ("x", .notANumber), ("inf", .notFinite), ("-inf", .notFinite), ("nan", .notFinite),
            ("1e300", .outOfRange), ("-1", .outOfRange), ("1e309", .notFinite),
        ] {
            #expect {
                try CheckedNumber.double(text, in: 0...100, what: "rate")
            } throws: { error in
                let error = error as! CheckedNumberError
                return error.problem == problem && error.description.hasPrefix("rate: ") && error.description.contains("from 0 to 100")
            }
        }
    }

    @Test func wholeNumbersNeverTrap() throws {
        #expect(try CheckedNumber.integer(25, in: 1...250, what: "hop") == 25)
        for value in [Double.nan, .infinity, -.infinity, 1e300, 9.3e18, Double(Int.max), 2.5, 0, 251] {
            #expect(throws: CheckedNumberError.self) { try CheckedNumber.integer(value, in: 1...250, what: "hop") }
        }
        #expect(throws: CheckedNumberError.self) { try CheckedNumber.integer(Double(Int.max), in: Int.min...Int.max, what: "big") }
        #expect(CheckedNumber.clampedInteger(1e300) == Int.max)
        #expect(CheckedNumber.clampedInteger(-.infinity) == Int.min)
        #expect(CheckedNumber.clampedInteger(.nan) == 0)
        #expect(CheckedNumber.clampedInteger(-2.7) == -2)
    }
}
