package io.ringbase.node;

import io.ringbase.cluster.elastic.ElasticMembership;
import io.ringbase.cluster.elastic.MoveStatus;
import java.util.Locale;

/** The JSON a node gives of its elastic membership and of the change it drives. */
final class ElasticStatus {

    private ElasticStatus() {}

    /**
     * {@code {"epoch":e,"state":"NORMAL","kind":"join","phase":"streaming","streamsDone":1,"streamsTotal":3,
     * "entries":n,"bytes":b,"elapsedMs":t,"megabytesPerSecond":r,"error":""}}.
     */
    static String moveJson(ElasticMembership m) {
        MoveStatus s = m.moveStatus();
        return "{\"epoch\":" + m.epoch() + ",\"nodeId\":" + m.selfId() + ",\"state\":\"" + m.selfStateName()
                + "\",\"kind\":\"" + s.kind() + "\",\"phase\":\"" + s.phase() + "\",\"changeEpoch\":" + s.epoch()
                + ",\"streamsDone\":" + s.streamsDone() + ",\"streamsTotal\":" + s.streamsTotal() + ",\"entries\":"
                + s.entries() + ",\"bytes\":" + s.bytes() + ",\"elapsedMs\":" + s.elapsedMs()
                + ",\"megabytesPerSecond\":" + String.format(Locale.ROOT, "%.1f", s.megabytesPerSecond())
                + ",\"error\":\"" + escape(s.error()) + "\"}";
    }

    private static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }
}
