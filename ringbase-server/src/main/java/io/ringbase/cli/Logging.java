package io.ringbase.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets up logging for a node once its flags are parsed: the format of the {@code STDERR} appender of
 * {@link LogbackDefaults} ({@link Format#TEXT}, or logback's {@link JsonEncoder} for {@link Format#JSON})
 * and the context property {@code node} (the node's URL), which the text pattern prints on every line
 * and the JSON encoder writes into every object ({@code context.properties.node}). The level is
 * {@code RINGBASE_LOG_LEVEL}, read by {@link LogbackDefaults}.
 */
final class Logging {

    /** {@code --log-format}. */
    enum Format {
        TEXT,
        JSON
    }

    /** The pattern of the text format ({@link LogbackDefaults}; conf/logback.xml.example repeats it). */
    static final String TEXT_PATTERN =
            "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{36} %property{node} - %msg%n";

    private Logging() {}

    /** The levels {@code RINGBASE_LOG_LEVEL} may name (any case). */
    static final java.util.List<String> LEVELS = java.util.List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR");

    /**
     * Checks {@code RINGBASE_LOG_LEVEL}'s value ({@code null} when unset), which {@link LogbackDefaults}
     * applies by itself (and a logback.xml copied from the example would take as DEBUG when misspelt).
     *
     * @throws IllegalArgumentException naming the value and the levels allowed
     */
    static void checkLevel(String value) {
        if (value != null && !value.isEmpty() && !LEVELS.contains(value.toUpperCase(java.util.Locale.ROOT))) {
            throw new IllegalArgumentException(
                    "RINGBASE_LOG_LEVEL must be one of " + String.join(", ", LEVELS) + ", got '" + value + "'");
        }
    }

    /**
     * Applies {@code format} and names the node in every line. Does nothing if logging is not logback
     * with a console appender named {@code STDERR} (an operator's own configuration).
     */
    static void configure(Format format, String node) {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            return;
        }
        context.putProperty("node", node);
        Appender<ILoggingEvent> appender =
                context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR");
        if (!(appender instanceof ConsoleAppender<ILoggingEvent> console)) {
            return;
        }
        Encoder<ILoggingEvent> encoder;
        if (format == Format.JSON) {
            JsonEncoder json = new JsonEncoder();
            json.setContext(context);
            json.setWithFormattedMessage(true); // the message with its arguments in place, for log search
            json.start();
            encoder = json;
        } else {
            PatternLayoutEncoder text = new PatternLayoutEncoder();
            text.setContext(context);
            text.setPattern(TEXT_PATTERN);
            text.start();
            encoder = text;
        }
        console.stop();
        console.setEncoder(encoder);
        console.start();
    }
}
