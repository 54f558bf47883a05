package io.ringbase.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.channel.embedded.EmbeddedChannel;
import io.ringbase.logging.LogThrottle;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** What {@link ConnectionHandler} logs when an error closes a connection. */
class ConnectionErrorLogTest {

    private final Logger logger = (Logger) LoggerFactory.getLogger(ConnectionHandler.class);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

    @BeforeEach
    void capture() {
        logged.start();
        logger.addAppender(logged);
    }

    @AfterEach
    void release() {
        logger.detachAppender(logged);
    }

    private List<ILoggingEvent> warnings() {
        return logged.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
    }

    @Test
    void anUnexpectedErrorClosesTheConnectionWithAWarningAndItsStackTrace() {
        EmbeddedChannel channel = new EmbeddedChannel(new ConnectionHandler(null, new LogThrottle(10, TimeUnit.SECONDS)));
        channel.pipeline().fireExceptionCaught(new IllegalStateException("broken invariant"));

        assertThat(channel.isOpen()).isFalse();
        assertThat(warnings()).hasSize(1);
        ILoggingEvent warning = warnings().getFirst();
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
        assertThat(warnings()).hasSize(1);
        assertThat(warnings().getFirst().getThrowableProxy().getMessage()).isEqualTo("error 0");
    }

    @Test
    void aPeerThatWentAwayIsNoWarning() {
        EmbeddedChannel channel = new EmbeddedChannel(new ConnectionHandler(null, new LogThrottle(10, TimeUnit.SECONDS)));
        channel.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));

        assertThat(channel.isOpen()).isFalse();
        assertThat(warnings()).isEmpty();
    }
}
