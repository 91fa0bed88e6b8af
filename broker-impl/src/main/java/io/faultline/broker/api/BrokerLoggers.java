package io.faultline.broker.api;

import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This broker's log levels as Kafka's BROKER_LOGGER config resource shows them (kafka-configs --entity-type
 * broker-loggers). The broker logs through SLF4J with the slf4j-simple binding, which has no public API to change a
 * level: its loggers keep their level in a field, so this class reads and writes that field. Levels follow log4j's
 * hierarchy as Kafka's do: a level set on {@code a.b} applies to {@code a.b.c} unless a level was set on a closer
 * ancestor; removing it gives the loggers back the level they inherit; "root" is every logger's ancestor.
 * Only loggers that exist when a level is set change (slf4j-simple fixes a new logger's level when it is created).
 * With another SLF4J binding nothing is described and changes are refused.
 */
final class BrokerLoggers {
    static final String ROOT = "root";
    private static final String SIMPLE_FACTORY = "org.slf4j.impl.SimpleLoggerFactory";
    private static final String SIMPLE_LOGGER = "org.slf4j.impl.SimpleLogger";

    private final Optional<Field> loggerMap;
    private final Optional<Field> levelField;
    private final int defaultLevel;
    /** Levels set through the admin API, by logger name ("root" included); guarded by this. */
    private final Map<String, Integer> explicit = new HashMap<>();
    /** Each changed logger's level from before the first change (what it returns to); guarded by this. */
    private final Map<String, Integer> initial = new HashMap<>();

    private BrokerLoggers(Optional<Field> loggerMap, Optional<Field> levelField, int defaultLevel) {
        this.loggerMap = loggerMap;
        this.levelField = levelField;
        this.defaultLevel = defaultLevel;
    }

    /** Log levels are per JVM: every broker in this process (tests run several) shares one view of them. */
    private static final BrokerLoggers JVM = ofBinding();

    static BrokerLoggers jvm() {
        return JVM;
    }

    /** The loggers of the SLF4J binding in use; unsupported (empty, refuses changes) unless it is slf4j-simple. */
    private static BrokerLoggers ofBinding() {
        ILoggerFactory f = LoggerFactory.getILoggerFactory();
        if (!f.getClass().getName().equals(SIMPLE_FACTORY)) return new BrokerLoggers(Optional.empty(), Optional.empty(), 20);
        try {
            Field map = f.getClass().getDeclaredField("loggerMap");
            map.setAccessible(true);
            Class<?> simple = Class.forName(SIMPLE_LOGGER, false, f.getClass().getClassLoader());
            Field level = simple.getDeclaredField("currentLogLevel");
            level.setAccessible(true);
            // A logger without a configured level has slf4j-simple's default level: root's, as Kafka shows it.
            Field params = simple.getDeclaredField("CONFIG_PARAMS");
            params.setAccessible(true);
            Object config = params.get(null);
            Field dflt = config.getClass().getDeclaredField("defaultLogLevel");
            dflt.setAccessible(true);
            return new BrokerLoggers(Optional.of(map), Optional.of(level), dflt.getInt(config));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return new BrokerLoggers(Optional.empty(), Optional.empty(), 20);
        }
    }

    boolean supported() {
        return loggerMap.isPresent();
    }

    String binding() {
        return LoggerFactory.getILoggerFactory().getClass().getName();
    }

    /** Every logger (and every ancestor given a level here) with its level name, sorted. */
    synchronized Map<String, String> levels() {
        Map<String, String> out = new TreeMap<>();
        if (!supported()) return out;
        explicit.forEach((name, level) -> out.put(name, render(level))); // ancestors set here, too
        loggers().forEach((name, l) -> out.put(name, render(levelOf(levelField.get(), l))));
        out.put(ROOT, render(explicit.getOrDefault(ROOT, defaultLevel)));
        return out;
    }

    /** A logger exists, or is an ancestor (a package) of one, as log4j's hierarchy has them. */
    boolean exists(String name) {
        if (ROOT.equals(name)) return true;
        if (!supported()) return false;
        for (String l : loggers().keySet()) {
            if (l.equals(name) || l.startsWith(name + ".")) return true;
        }
        return false;
    }

    /** Sets {@code level} (a Kafka level name, already validated) on {@code name} and the loggers inheriting it. */
    synchronized void set(String name, String level) {
        explicit.put(name, parse(level));
        reapply();
    }

    /** Removes the level set on {@code name}: it and its descendants inherit again. */
    synchronized void unset(String name) {
        explicit.remove(name);
        reapply();
    }

    private void reapply() {
        loggers().forEach((name, l) -> {
            initial.putIfAbsent(name, levelOf(levelField.get(), l));
            Integer level = inherited(name);
            try {
                levelField.get().setInt(l, level != null ? level : initial.get(name));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The level set on {@code name} or its closest ancestor (root last), or null when none applies. */
    private Integer inherited(String name) {
        for (String n = name; ; ) {
            Integer l = explicit.get(n);
            if (l != null) return l;
            int dot = n.lastIndexOf('.');
            // A logger configured with its own level at startup (simplelogger properties) keeps it when root changes.
            if (dot < 0) return initial.get(name) == defaultLevel ? explicit.get(ROOT) : null;
            n = n.substring(0, dot);
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Logger> loggers() {
        try {
            return new TreeMap<>((ConcurrentMap<String, Logger>) loggerMap.get().get(LoggerFactory.getILoggerFactory()));
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int levelOf(Field level, Logger l) {
        try {
            return level.getInt(l);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** slf4j-simple's level numbers; it has no FATAL, which logs as ERROR. */
    private static int parse(String kafkaLevel) {
        return switch (kafkaLevel) {
            case "TRACE" -> 0;
            case "DEBUG" -> 10;
            case "INFO" -> 20;
            case "WARN" -> 30;
            case "ERROR", "FATAL" -> 40;
            default -> 50; // OFF
        };
    }

    private static String render(int level) {
        if (level <= 0) return "TRACE";
        if (level <= 10) return "DEBUG";
        if (level <= 20) return "INFO";
        if (level <= 30) return "WARN";
        if (level <= 40) return "ERROR";
        return "OFF";
    }
}
