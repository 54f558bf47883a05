package io.ringbase.cluster.metadata;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ringbase.logging.LogCapture;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.TestCertificates;
import io.ringbase.tls.PeerKeys;
import io.ringbase.tls.ServerTls;
import io.ringbase.tls.TlsOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metadata servers whose Raft port speaks mutual TLS (Ratis over gRPC, {@link JdkTlsGrpc}) on certificates of
 * a CA the test makes: they form the group and agree; a peer that presents no certificate of the CA, or
 * speaks plain, is refused; a server whose certificate does not name the host it is dialled at is refused by
 * its clients; a renewed certificate is presented to the connections opened after the reload.
 */
@IntegrationTest
@Timeout(120)
class MetadataTlsIT {

    private static final UUID CLUSTER = UUID.fromString("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
    private static final long TIMEOUT_MS = 4_000;
    /** How long a client that must be refused keeps trying, ms. */
    private static final long REFUSED_WITHIN_MS = 3_000;

    @TempDir
    Path dir;

    @RegisterExtension
    final LogCapture log = new LogCapture(JdkTlsGrpc.class);

    private final TestCertificates ca = new TestCertificates("metadata-ca");
    private final Map<Integer, String> peers = new TreeMap<>();
    private final Map<Integer, MetadataService> running = new TreeMap<>();
    private final List<ServerTls> tls = new ArrayList<>();

    @AfterEach
    void closeAll() throws IOException {
        for (MetadataService service : running.values()) {
            service.close();
        }
        for (ServerTls t : tls) {
            t.close();
        }
    }

    @Test
    void threeServersFormTheGroupAndAgreeOverMutualTls() throws Exception {
        startGroup(3, id -> ca.issue("node-" + id));
        ClusterMetadata initialized = running.get(2)
                .submit(new Transformation.Initialize(CLUSTER, 2, founders(3)))
                .get(TIMEOUT_MS * 3, MILLISECONDS);
        assertThat(initialized.epoch()).isEqualTo(1);
        ClusterMetadata joining = running.get(3)
                .submit(new Transformation.StartJoin("http://127.0.0.1:18004", "127.0.0.1:19004"))
                .get(TIMEOUT_MS * 3, MILLISECONDS);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (MetadataService service : running.values()) {
                assertThat(service.current()).isEqualTo(joining);
            }
        });
    }

    @Test
    void aPeerWithoutACertificateOfTheCaIsRefused() throws Exception {
        startGroup(3, id -> ca.issue("node-" + id));
        running.get(1)
                .submit(new Transformation.Initialize(CLUSTER, 2, founders(3)))
                .get(TIMEOUT_MS * 3, MILLISECONDS);
        Map<Integer, String> voters = Map.copyOf(peers);

        // a certificate of the CA reaches the group: setting the voters it has changes nothing and succeeds
        MetadataService.setVoters(voters, voters, TIMEOUT_MS * 3, keys("peer", ca.issue("peer")));

        // one of another CA (which trusts the group's CA, so only the group's check can refuse it)
        TestCertificates other = new TestCertificates("other-ca");
        PeerKeys stranger = keys("stranger", other.issue("stranger"), ca.writeCa(dir.resolve("group-ca.pem")));
        assertThatThrownBy(() -> MetadataService.setVoters(voters, voters, REFUSED_WITHIN_MS, stranger))
                .isInstanceOf(MetadataUnavailableException.class);
        // a node set up with another CA altogether (its certificate and its trust): it refuses the group's
        // certificates itself and says so in a line of its own (gRPC says it below INFO)
        PeerKeys misconfigured =
                keys("misconfigured", other.issue("misconfigured"), other.writeCa(dir.resolve("o.pem")));
        assertThatThrownBy(() -> MetadataService.setVoters(voters, voters, REFUSED_WITHIN_MS, misconfigured))
                .isInstanceOf(MetadataUnavailableException.class);
        assertThat(log.warningMessages())
                .anySatisfy(m -> assertThat(m)
                        .startsWith("metadata group: refused the TLS certificate of the peer dialled at 127.0.0.1:")
                        .contains("CN=node-"));
        // and a plain Ratis client (Netty, no TLS) on the TLS port
        assertThatThrownBy(() -> MetadataService.setVoters(voters, voters, REFUSED_WITHIN_MS, null))
                .isInstanceOf(MetadataUnavailableException.class);
    }

    @Test
    void aServerWhoseCertificateDoesNotNameItsHostIsRefusedByItsClients() throws Exception {
        // one server, dialled at 127.0.0.1, with a certificate of the CA for another host only
        startGroup(1, id -> ca.issueFor("node-" + id, "elsewhere.invalid"));
        Map<Integer, String> voters = Map.copyOf(peers);
        assertThatThrownBy(() ->
                        MetadataService.setVoters(voters, voters, REFUSED_WITHIN_MS, keys("peer", ca.issue("peer"))))
                .isInstanceOf(MetadataUnavailableException.class);
        assertThat(log.warningMessages())
                .anySatisfy(m -> assertThat(m)
                        .startsWith("metadata group: refused the TLS certificate of the peer dialled at 127.0.0.1:")
                        .contains("CN=node-1"));
    }

    @Test
    void aRenewedCertificateIsPresentedToTheRaftConnectionsOpenedAfterTheReload() throws Exception {
        startGroup(1, id -> ca.issue("node-" + id));
        TestCertificates.Issued renewed = ca.issue("node-1-renewed");
        assertThat(serverCertificate(peers.get(1))).isNotEqualTo(renewed.certificate());
        TestCertificates.write(renewed, dir.resolve("node-1.pem"), dir.resolve("node-1.key"));
        tls.getFirst().pollNow(); // node 1's files, as its reload poller would
        assertThat(serverCertificate(peers.get(1))).isEqualTo(renewed.certificate());
        // and the group still works on it
        Map<Integer, String> voters = Map.copyOf(peers);
        MetadataService.setVoters(voters, voters, TIMEOUT_MS * 3, keys("peer", ca.issue("peer")));
    }

    /** The certificate the server at {@code address} presents to a new TLS connection with a node's certificate. */
    private X509Certificate serverCertificate(String address) throws IOException {
        int colon = address.lastIndexOf(':');
        SSLContext context = ca.clientContext(ca.issue("probe"));
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory()
                .createSocket(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)))) {
            socket.setSoTimeout(10_000);
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setApplicationProtocols(new String[] {"h2"}); // gRPC's HTTP/2
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            return (X509Certificate) socket.getSession().getPeerCertificates()[0];
        }
    }

    private interface Issuer {
        TestCertificates.Issued issue(int id);
    }

    private void startGroup(int n, Issuer issuer) throws IOException {
        for (int id = 1; id <= n; id++) {
            peers.put(id, "127.0.0.1:" + freePort());
        }
        for (int id = 1; id <= n; id++) {
            PeerKeys keys = keys("node-" + id, issuer.issue(id));
            running.put(
                    id,
                    MetadataService.start(MetadataOptions.of(id, peers, dir.resolve("node-" + id))
                            .withRequestTimeoutMs(TIMEOUT_MS)
                            .withTls(keys)));
        }
    }

    /** The reloading managers a node makes of its PEM files, trusting the group's CA. */
    private PeerKeys keys(String name, TestCertificates.Issued issued) throws IOException {
        return keys(name, issued, ca.writeCa(dir.resolve("ca.pem")));
    }

    private PeerKeys keys(String name, TestCertificates.Issued issued, Path trusted) throws IOException {
        Path cert = dir.resolve(name + ".pem");
        Path key = dir.resolve(name + ".key");
        TestCertificates.write(issued, cert, key);
        ServerTls t = ServerTls.open(new TlsOptions(cert, key, trusted, 60_000, true));
        tls.add(t);
        return Objects.requireNonNull(t.peerKeys());
    }

    private static List<Transformation.Founder> founders(int n) {
        List<Transformation.Founder> founders = new ArrayList<>();
        for (int id = 1; id <= n; id++) {
            founders.add(new Transformation.Founder("http://127.0.0.1:1800" + id, "127.0.0.1:1900" + id));
        }
        return founders;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }
}
