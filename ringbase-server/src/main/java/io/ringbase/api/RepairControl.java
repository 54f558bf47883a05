package io.ringbase.api;

/** What the admin API ({@code /v0/admin/repair}) needs of the anti-entropy repair service. */
public interface RepairControl {

    /** Starts a repair in the background; {@code false} if one is already running. */
    boolean start();

    /** The state as one JSON object: {@code {"state":"idle"|"running", ...progress}}. */
    String statusJson();
}
