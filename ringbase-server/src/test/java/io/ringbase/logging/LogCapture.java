package io.ringbase.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * What one class's logger logs during each test, for tests that assert a log line: a field
 * {@code @RegisterExtension final LogCapture log = new LogCapture(Some.class);}. The logger keeps its
 * other appenders and its level.
 */
public final class LogCapture implements BeforeEachCallback, AfterEachCallback {

    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    /** @param loggerOf the class whose logger ({@code LoggerFactory.getLogger(loggerOf)}) is captured */
    public LogCapture(Class<?> loggerOf) {
        this.logger = (Logger) LoggerFactory.getLogger(loggerOf);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        appender.list.clear();
        appender.start();
        logger.addAppender(appender);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.detachAppender(appender);
        appender.stop();
    }

    /** The WARN events logged so far in this test, oldest first. */
    public List<ILoggingEvent> warnings() {
        return appender.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
    }

    /** The formatted messages of the ERROR events logged so far in this test, oldest first. */
    public List<String> errorMessages() {
        return appender.list.stream()
                .filter(e -> e.getLevel() == Level.ERROR)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    /** The formatted messages of {@link #warnings()}. */
    public List<String> warningMessages() {
        return warnings().stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
}
