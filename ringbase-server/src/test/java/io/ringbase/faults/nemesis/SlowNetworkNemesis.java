package io.ringbase.faults.nemesis;

import io.ringbase.faults.cluster.NsCluster;
import io.ringbase.faults.net.NetworkLab;
import io.ringbase.faults.net.Shell;
import java.util.List;
import java.util.Random;

/**
 * Added latency and packet loss on every node's link. With the kernel's netem qdisc:
 * {@code tc qdisc add dev eth0 root netem delay 60ms 40ms loss 5%}. Kernels built without netem
 * ({@code CONFIG_NET_SCH_NETEM} unset, as on the machines this suite was written on) get the closest
 * thing they have: a token bucket ({@code tbf rate 1mbit latency 400ms}: large answers queue for up to
 * 400 ms) and 10% random loss of node-to-node packets by iptables' {@code statistic} match (each lost
 * segment costs a TCP retransmission, 200 ms or more). Which one ran is in the report's row name.
 */
public final class SlowNetworkNemesis implements Nemesis {

    private boolean netem;
    private boolean prepared;
    private boolean active;

    @Override
    public String name() {
        return !prepared
                ? "latency+loss"
                : netem ? "latency+loss (netem)" : "latency+loss (no netem in kernel: tbf + iptables 10% loss)";
    }

    @Override
    public void prepare(NsCluster cluster, NetworkLab lab) {
        List<String> probe = new java.util.ArrayList<>(NetworkLab.inNamespace(0));
        probe.addAll(List.of("tc", "qdisc", "add", "dev", "eth0", "root", "netem", "delay", "1ms"));
        netem = Shell.tryRun(probe.toArray(String[]::new)).exit() == 0;
        if (netem) {
            lab.exec(0, "tc", "qdisc", "del", "dev", "eth0", "root");
        }
        prepared = true;
    }

    @Override
    public String inject(NsCluster cluster, NetworkLab lab, Random random) {
        active = true;
        for (int i = 0; i < cluster.size(); i++) {
            if (netem) {
                lab.exec(
                        i, "tc", "qdisc", "add", "dev", "eth0", "root", "netem", "delay", "60ms", "40ms", "loss", "5%");
            } else {
                lab.exec(
                        i, "tc", "qdisc", "add", "dev", "eth0", "root", "tbf", "rate", "1mbit", "burst", "16kb",
                        "latency", "400ms");
                for (int o = 0; o < cluster.size(); o++) {
                    if (o != i) {
                        lab.exec(
                                i,
                                "iptables",
                                "-A",
                                "INPUT",
                                "-s",
                                NetworkLab.ip(o),
                                "-m",
                                "statistic",
                                "--mode",
                                "random",
                                "--probability",
                                "0.1",
                                "-j",
                                "DROP");
                    }
                }
            }
        }
        return netem
                ? "netem delay 60ms±40ms loss 5% on every node"
                : "tbf 1mbit/400ms + 10% node-to-node loss on every node";
    }

    @Override
    public String heal(NsCluster cluster, NetworkLab lab) {
        if (!active) {
            return null;
        }
        active = false;
        for (int i = 0; i < cluster.size(); i++) {
            List<String> del = new java.util.ArrayList<>(NetworkLab.inNamespace(i));
            del.addAll(List.of("tc", "qdisc", "del", "dev", "eth0", "root"));
            Shell.tryRun(del.toArray(String[]::new));
            lab.exec(i, "iptables", "-F");
        }
        return "remove qdisc and loss rules";
    }
}
