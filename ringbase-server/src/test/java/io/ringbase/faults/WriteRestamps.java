package io.ringbase.faults;

import io.ringbase.faults.cluster.NsNode;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How often the nodes' one-round quorum writes were re-stamped above a newer version every replica held,
 * or failed split (taken by some replicas, newer on others), read from their logs: each process logs the
 * count at 1, 2, 4, 8..., so the sum over every start of every node is a lower bound (at least half).
 */
final class WriteRestamps {

    private static final String START = "---- start ";
    private static final Pattern RESTAMPS =
            Pattern.compile("quorum writes sent again above a newer version every replica held: (\\d+) so far");
    private static final Pattern SPLITS =
            Pattern.compile("quorum writes failed as possibly applied, .*: (\\d+) so far");

    private WriteRestamps() {}

    /** The report's note for {@code nodes}. */
    static Note note(List<NsNode> nodes) {
        long restamps = 0;
        long splits = 0;
        for (NsNode n : nodes) {
            String log = n.logText();
            restamps += countedIn(log, RESTAMPS);
            splits += countedIn(log, SPLITS);
        }
        return Note.info("one-round quorum writes re-stamped at least " + restamps + " times, failed split at least "
                + splits + " times (node logs)");
    }

    /** The sum over the log's process starts of the largest count {@code pattern} found in each. */
    static long countedIn(String log, Pattern pattern) {
        long total = 0;
        long inThisStart = 0;
        for (String line : log.split("\n", -1)) {
            if (line.startsWith(START)) {
                total += inThisStart;
                inThisStart = 0;
                continue;
            }
            Matcher m = pattern.matcher(line);
            if (m.find()) {
                inThisStart = Math.max(inThisStart, Long.parseLong(m.group(1)));
            }
        }
        return total + inThisStart;
    }
}
