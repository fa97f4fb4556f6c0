package io.conduit.archfixture.api;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.conduit.archfixture.internal.Secret;

/** Fixture of {@code PackageGraphTest}: each public or protected member mentions an internal type. */
public class Leaky {

    public Secret field;
    private Secret hiddenField;

    public Leaky(Secret secret) {
        hiddenField = secret;
    }

    public Secret returns() {
        return hiddenField;
    }

    protected void takes(Secret secret) {
        hiddenField = secret;
    }

    public <T extends Comparable<T>> List<T> generic(Map<String, ? super Secret> values) {
        return List.of();
    }

    public void throwing() throws Secret {
        throw hiddenField;
    }

    void hiddenPackagePrivate(Secret secret) {
        hiddenField = secret;
    }

    private Secret hiddenPrivate() {
        return hiddenField;
    }

    /** Visible because it is public inside a public class. */
    public static class Nested implements Supplier<Secret> {
        @Override
        public Secret get() {
            return null;
        }
    }
}
