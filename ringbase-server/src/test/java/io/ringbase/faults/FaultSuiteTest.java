package io.ringbase.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The suite's rows and the developer's filter of them; nothing here starts a node. */
class FaultSuiteTest {

    @Test
    void everyRowHasItsOwnNameAndTheNewFaultsAreThere() {
        List<String> names =
                FaultSuite.faults().stream().map(FaultSuite.Fault::name).toList();
        assertThat(names).doesNotHaveDuplicates();
        assertThat(names)
                .contains(
                        "kill (SIGKILL, restart) + tombstone purge",
                        "kill majority (SIGKILL 2 of 3, restart)",
                        "partition client/node");
    }

    @Test
    void theFullSuiteAddsTheMembershipRowsAndTheShortOneLeavesThemToTheirOwnTest() {
        List<String> full =
                FaultSuite.fullFaults().stream().map(FaultSuite.Fault::name).toList();
        assertThat(full).doesNotHaveDuplicates();
        assertThat(full)
                .contains(
                        FaultSuite.membershipFault().name(),
                        "membership join during a founder's kill (SIGKILL, restart)",
                        FaultSuite.wipeReplaceFault().name());
        assertThat(full).hasSize(FaultSuite.faults().size() + 3);
        assertThat(FaultSuite.faults().stream().map(FaultSuite.Fault::name)).noneMatch(n -> n.startsWith("membership"));
    }

    @Test
    void theFilterKeepsRowsWhoseNameHasOneOfItsParts() {
        List<String> names = FaultSuite.selected(FaultSuite.faults(), " Client, majority ").stream()
                .map(FaultSuite.Fault::name)
                .toList();
        assertThat(names)
                .containsExactly(
                        "kill majority (SIGKILL 2 of 3, restart)",
                        "partition majority/minority",
                        "partition client/node");
        assertThat(FaultSuite.selected(FaultSuite.faults(), ""))
                .hasSize(FaultSuite.faults().size());
    }

    @Test
    void aFilterThatMatchesNothingIsAnErrorNotAnEmptyPass() {
        assertThatThrownBy(() -> FaultSuite.selected(FaultSuite.faults(), "wiped disk"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ringbase.faults.only=wiped disk matches no fault");
    }
}
