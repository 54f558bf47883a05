package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import io.netty.channel.embedded.EmbeddedChannel;
import io.ringbase.logging.LogCapture;
import io.ringbase.logging.LogThrottle;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What {@link ConnectionHandler} logs when an error closes a connection. */
class ConnectionErrorLogTest {

    @RegisterExtension
    final LogCapture log = new LogCapture(ConnectionHandler.class);

    @Test
    void anUnexpectedErrorClosesTheConnectionWithAWarningAndItsStackTrace() {
        EmbeddedChannel channel =
                new EmbeddedChannel(new ConnectionHandler(null, new LogThrottle(10, TimeUnit.SECONDS)));
        channel.pipeline().fireExceptionCaught(new IllegalStateException("broken invariant"));

        assertThat(channel.isOpen()).isFalse();
        assertThat(log.warnings()).hasSize(1);
        ILoggingEvent warning = log.warnings().getFirst();
        assertThat(warning.getFormattedMessage()).contains("closing connection", "unexpected error", "bug");
        assertThat(warning.getThrowableProxy().getClassName()).isEqualTo(IllegalStateException.class.getName());
        assertThat(warning.getThrowableProxy().getMessage()).isEqualTo("broken invariant");
    }

    @Test
    void furtherErrorsWithinTheIntervalAreNotLogged() {
        LogThrottle throttle = new LogThrottle(10, TimeUnit.SECONDS);
        for (int i = 0; i < 4; i++) {
            EmbeddedChannel channel = new EmbeddedChannel(new ConnectionHandler(null, throttle));
            channel.pipeline().fireExceptionCaught(new IllegalStateException("error " + i));
            assertThat(channel.isOpen()).isFalse();
        }
        assertThat(log.warnings()).hasSize(1);
        assertThat(log.warnings().getFirst().getThrowableProxy().getMessage()).isEqualTo("error 0");
    }

    @Test
    void aPeerThatWentAwayIsNoWarning() {
        EmbeddedChannel channel =
                new EmbeddedChannel(new ConnectionHandler(null, new LogThrottle(10, TimeUnit.SECONDS)));
        channel.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));

        assertThat(channel.isOpen()).isFalse();
        assertThat(log.warnings()).isEmpty();
    }
}
