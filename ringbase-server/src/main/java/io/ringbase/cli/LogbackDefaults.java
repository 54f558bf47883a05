package io.ringbase.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;

/**
 * Ringbase's built-in logging configuration, set up in code by logback's {@link Configurator} service
 * (registered in {@code META-INF/services}) instead of parsed from XML: Joran's XML configuration
 * took 250-350 ms of every JVM start (half of what {@code LoggerFactory.getLogger} cost a fresh JVM on
 * this project's 2-CPU machine), which is a start of every node. What it sets:
 * <ul>
 *   <li>one console appender {@code STDERR} on {@code System.err} with {@link Logging#TEXT_PATTERN}
 *       (stdout carries only the node's "ready" line, which scripts read); {@code serve} switches its
 *       encoder for {@code --log-format json} and names the node ({@link Logging#configure});</li>
 *   <li>the root level from {@code RINGBASE_LOG_LEVEL} ({@code INFO} if unset; {@code serve} refuses a
 *       value that is not a level, {@link Logging#checkLevel});</li>
 *   <li>the quieted loggers of {@link #QUIET}.</li>
 * </ul>
 * An operator's own configuration wins: with {@code -Dlogback.configurationFile} set, or a
 * {@code logback.xml} or {@code logback-test.xml} on the class path, this does nothing and logback reads
 * that file as usual. The tarball ships this configuration as {@code conf/logback.xml.example}.
 */
public final class LogbackDefaults extends ContextAwareBase implements Configurator {

    /**
     * Loggers held above the root level. Apache Ratis (the cluster metadata log): its INFO lines are a
     * configuration dump and every role change of every server, which io.ringbase.cluster.metadata
     * reports as an operator needs it (leader, epochs, start, close); while a metadata server is down,
     * LifeCycle (an ERROR), the leader's LogAppender (a WARN; GrpcLogAppender under TLS, whose WARNs also come
     * with a stack trace for each follower at every close) and the client's OrderedAsync (an ERROR for
     * each server it tries that is not the leader) log a stack trace for every attempt, 20 to 30 a
     * second, and the failures that matter reach io.ringbase.cluster.metadata as exceptions.
     */
    static final Map<String, Level> QUIET = Map.of(
            "io.netty", Level.WARN,
            "org.apache.ratis", Level.WARN,
            "org.apache.ratis.util.LifeCycle", Level.OFF,
            "org.apache.ratis.server.leader.LogAppender", Level.ERROR,
            "org.apache.ratis.grpc.server.GrpcLogAppender", Level.ERROR,
            "org.apache.ratis.client.impl.OrderedAsync", Level.OFF);

    /** Public with no arguments: logback's ServiceLoader makes it. */
    public LogbackDefaults() {}

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        ClassLoader loader = LogbackDefaults.class.getClassLoader();
        if (System.getProperty("logback.configurationFile") != null
                || loader.getResource("logback-test.xml") != null
                || loader.getResource("logback.xml") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY; // an operator's (or a test's) file: logback reads it
        }
        install(context, System.getenv("RINGBASE_LOG_LEVEL"));
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** Sets the built-in configuration up in {@code context}, the root at {@code level} ({@link #rootLevel}). */
    static void install(LoggerContext context, String level) {
        context.putProperty("node", "-");
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(Logging.TEXT_PATTERN);
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("STDERR");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        QUIET.forEach((name, quiet) -> context.getLogger(name).setLevel(quiet));
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(rootLevel(level));
        root.addAppender(stderr);
    }

    /** The root level {@code RINGBASE_LOG_LEVEL} names, {@code INFO} if it is unset, empty or no level. */
    static Level rootLevel(String value) {
        if (value == null || !Logging.LEVELS.contains(value.strip().toUpperCase(Locale.ROOT))) {
            return Level.INFO;
        }
        return Level.toLevel(value.strip(), Level.INFO);
    }
}
