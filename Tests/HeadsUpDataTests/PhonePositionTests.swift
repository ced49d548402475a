import HeadsUpData
import Testing

/// The record labels: positions, their 0/1 label, and what people type.
@Suite("Phone positions")
struct PhonePositionTests {
    @Test func onlyTheHandsAreDistracted() {
        for position in PhonePosition.allCases {
            #expect(position.label == (position == .hands ? .hands : .pocket), "\(position)")
        }
    }

    @Test func theOldLabelsKeepTheirMeaning() {
        #expect(PhonePosition(argument: "hands") == .hands)
        #expect(PhonePosition(argument: "1") == .hands)
        #expect(PhonePosition(argument: "pocket") == .pocket)
        #expect(PhonePosition(argument: "0") == .pocket)
        #expect(PhonePosition(argument: "0")?.label.rawValue == 0)
        #expect(PhonePosition(argument: "1")?.label.rawValue == 1)
    }

    @Test func namesAndAliases() {
        for position in PhonePosition.allCases {
            #expect(PhonePosition(argument: position.rawValue) == position)
            #expect(PhonePosition(argument: position.rawValue.uppercased()) == position)
        }
        #expect(PhonePosition(argument: "neck_pouch") == .neckPouch)
        #expect(PhonePosition(argument: "swinging") == .swingingArm)
        #expect(PhonePosition(argument: "handbag") == .purse)
        #expect(PhonePosition(argument: "desk") == nil)
        #expect(PhonePosition(argument: "2") == nil)
        #expect(PhonePosition.choices == "hands|pocket|bag|purse|armband|neck-pouch|swinging-arm")
    }

    @Test func theCarryKeyReturnsToTheStartingPosition() {
        #expect(PhonePosition.bag.carryPosition == .bag)
        #expect(PhonePosition.hands.carryPosition == .pocket)
    }
}
