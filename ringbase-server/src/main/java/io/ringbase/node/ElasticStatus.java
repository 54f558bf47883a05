package io.ringbase.node;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.ringbase.cluster.elastic.ElasticMembership;
import io.ringbase.cluster.elastic.MoveStatus;
import java.math.BigDecimal;
import java.math.RoundingMode;

/** The JSON a node gives of its elastic membership and of the change it drives. */
final class ElasticStatus {

    private ElasticStatus() {}

    /**
     * {@code {"epoch":e,"nodeId":i,"state":"NORMAL","kind":"join","phase":"streaming","changeEpoch":c,
     * "streamsDone":1,"streamsTotal":3,"entries":n,"bytes":b,"elapsedMs":t,"megabytesPerSecond":r,"error":""}}
     * ({@code megabytesPerSecond} with one decimal).
     */
    static String moveJson(ElasticMembership m) {
        MoveStatus s = m.moveStatus();
        return JsonNodeFactory.instance
                .objectNode()
                .put("epoch", m.epoch())
                .put("nodeId", m.selfId())
                .put("state", m.selfStateName())
                .put("kind", s.kind())
                .put("phase", s.phase())
                .put("changeEpoch", s.epoch())
                .put("streamsDone", s.streamsDone())
                .put("streamsTotal", s.streamsTotal())
                .put("entries", s.entries())
                .put("bytes", s.bytes())
                .put("elapsedMs", s.elapsedMs())
                .put(
                        "megabytesPerSecond",
                        BigDecimal.valueOf(s.megabytesPerSecond()).setScale(1, RoundingMode.HALF_UP))
                .put("error", s.error())
                .toString();
    }
}
