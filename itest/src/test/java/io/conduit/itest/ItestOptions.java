package io.conduit.itest;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.options.UrlProvisionOption;

/**
 * The Pax Exam options every test class starts from. Runs in the driver JVM (outside the framework).
 *
 * <p>Bundles are installed by {@code file:} URL: ours from the reactor's {@code target} folders (the jars the build
 * just packaged, so an out-of-date jar in ~/.m2 is never tested), third-party ones from {@code target/bundles},
 * where maven-dependency-plugin copied them. The framework itself (Felix or Equinox) is whichever is on the test
 * class path; the pom runs every test once per framework.
 */
final class ItestOptions {

    private ItestOptions() {
    }

    /** Felix SCR with the OSGi APIs it needs beside it, Config Admin, Metatype, Gogo runtime, and conduit-api. */
    static Option base() {
        return composite(withoutConfigAdmin(), thirdParty("org.apache.felix.configadmin"),
                thirdParty("org.apache.felix.metatype"));
    }

    /**
     * {@link #base()} without Configuration Admin (its API package included) and without Metatype (which reports
     * an error event when the Configuration Admin API is missing).
     */
    static Option withoutConfigAdmin() {
        return composite(
                systemProperty("org.ops4j.pax.logging.DefaultServiceLog.level").value("WARN"),
                cleanCaches(),
                junitBundles(),
                thirdParty("org.osgi.util.function"),
                thirdParty("org.osgi.util.promise"),
                thirdParty("org.osgi.service.component"),
                thirdParty("org.apache.felix.scr"),
                thirdParty("org.apache.felix.gogo.runtime"),
                ours("conduit.itest.apiJar"));
    }

    /**
     * The epoll bundle with the native fragments the build made ({@link ItestFiles#epollFragments()}):
     * {@code io.conduit.epoll.linux.x86_64}, and {@code io.conduit.epoll.linux.aarch64} and {@code armv7} where their
     * cross compiler made them. Each one's {@code Bundle-NativeCode} ends in the optional {@code *}, so the fragment of the other
     * architecture resolves and attaches too but contributes no library. The fragments come first and are not
     * started, so they are installed before their host resolves and attach to it.
     */
    static Option epoll() {
        List<Option> options = new ArrayList<>();
        for (String fragment : ItestFiles.epollFragments()) {
            options.add(ours(ItestFiles.epollFragmentJarProperty(fragment)).noStart());
        }
        options.add(ours("conduit.itest.epollJar"));
        return composite(options.toArray(new Option[0]));
    }

    /**
     * The io_uring bundle with the native fragments the build made ({@link ItestFiles#iouringFragments()}), installed
     * as {@link #epoll()} installs epoll's: fragments first, not started.
     */
    static Option iouring() {
        List<Option> options = new ArrayList<>();
        for (String fragment : ItestFiles.iouringFragments()) {
            options.add(ours(ItestFiles.iouringFragmentJarProperty(fragment)).noStart());
        }
        options.add(ours("conduit.itest.iouringJar"));
        return composite(options.toArray(new Option[0]));
    }

    /** A jar copied by maven-dependency-plugin to target/bundles (version stripped from its name). */
    static Option thirdParty(String artifactId) {
        File f = new File(required("conduit.itest.bundles"), artifactId + ".jar");
        return bundle(url(f));
    }

    /** One of our packaged jars, named by a system property the pom sets. */
    static UrlProvisionOption ours(String property) {
        return bundle(url(new File(required(property))));
    }

    private static String url(File f) {
        if (!f.isFile()) {
            throw new IllegalStateException(f + " does not exist: build the reactor first (mvn -pl itest -am verify)");
        }
        return f.toURI().toString();
    }

    private static String required(String property) {
        String v = System.getProperty(property);
        if (v == null) {
            throw new IllegalStateException("system property " + property + " is not set; run the itests through"
                    + " Maven (itest/pom.xml sets it)");
        }
        return v;
    }
}
