package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.status.Status;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;

@Timeout(10)
class LogbackDefaultsTest {

    @Test
    void setsUpOneStderrAppenderWithTheTextPatternAndTheQuietLoggers() {
        LoggerContext context = new LoggerContext();
        LogbackDefaults.install(context, null);
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        assertThat(root.getLevel()).isEqualTo(Level.INFO);
        var appender = root.getAppender("STDERR");
        assertThat(appender).isInstanceOf(ConsoleAppender.class);
        ConsoleAppender<ILoggingEvent> console = (ConsoleAppender<ILoggingEvent>) appender;
        assertThat(console.getTarget()).isEqualTo("System.err");
        assertThat(console.isStarted()).isTrue();
        assertThat(((PatternLayoutEncoder) console.getEncoder()).getPattern()).isEqualTo(Logging.TEXT_PATTERN);
        assertThat(context.getLogger("io.netty").getLevel()).isEqualTo(Level.WARN);
        assertThat(context.getLogger("org.apache.ratis.util.LifeCycle").getLevel())
                .isEqualTo(Level.OFF);
        assertThat(context.getProperty("node")).isEqualTo("-");
    }

    @Test
    void theRootLevelIsTheEnvironmentsOrInfo() {
        assertThat(LogbackDefaults.rootLevel("debug")).isEqualTo(Level.DEBUG);
        assertThat(LogbackDefaults.rootLevel(" WARN ")).isEqualTo(Level.WARN);
        assertThat(LogbackDefaults.rootLevel(null)).isEqualTo(Level.INFO);
        assertThat(LogbackDefaults.rootLevel("verbose")).isEqualTo(Level.INFO);
    }

    /** The example the tarball ships reads without an error and sets up the same appender and levels. */
    @Test
    void theTarballsXmlExampleMatchesTheBuiltInConfiguration() throws Exception {
        LoggerContext context = new LoggerContext();
        JoranConfigurator joran = new JoranConfigurator();
        joran.setContext(context);
        joran.doConfigure(Path.of("src/dist/conf/logback.xml.example").toFile());
        assertThat(context.getStatusManager().getCopyOfStatusList()).noneMatch(s -> s.getLevel() >= Status.WARN);
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        ConsoleAppender<ILoggingEvent> console = (ConsoleAppender<ILoggingEvent>) root.getAppender("STDERR");
        assertThat(((PatternLayoutEncoder) console.getEncoder()).getPattern()).isEqualTo(Logging.TEXT_PATTERN);
        LogbackDefaults.QUIET.forEach((name, level) ->
                assertThat(context.getLogger(name).getLevel()).as(name).isEqualTo(level));
    }
}
