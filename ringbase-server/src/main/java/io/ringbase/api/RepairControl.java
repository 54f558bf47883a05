package io.ringbase.api;

/** What the admin API ({@code /v0/admin/repair}) needs of the anti-entropy repair service. */
public interface RepairControl {

    /** The repair of a node alone: there is no other replica to repair from. */
    RepairControl NONE = new RepairControl() {
        @Override
        public boolean start() {
            return false;
        }

        @Override
        public String statusJson() {
            return "{\"state\":\"idle\",\"note\":\"single node: nothing to repair\"}";
        }
    };

    /** Starts a repair in the background; {@code false} if one is already running or there is nothing to do. */
    boolean start();

    /** The state as one JSON object: {@code {"state":"idle"|"running", ...progress}}. */
    String statusJson();
}
