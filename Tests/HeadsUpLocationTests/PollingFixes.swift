import Foundation
import HeadsUpCrossings

/// Calls `poll` every 20 ms until `condition` holds of the fixes so far (or
/// 5 s): the fixes, or nil on time-out. Both clients' system tests wait so.
func fixes(polling poll: () -> [LocationFix], until condition: ([LocationFix]) -> Bool) -> [LocationFix]? {
    var fixes: [LocationFix] = []
    for _ in 0..<250 {
        fixes += poll()
        if condition(fixes) { return fixes }
        usleep(20_000)
    }
    return nil
}
