package io.conduit.archfixture.api;

import io.conduit.archfixture.internal.Secret;

/** Fixture of {@code PackageGraphTest}: uses an internal type only where other bundles cannot see it. */
public final class Clean {

    private final Secret hidden = new Secret();

    public String message() {
        return String.valueOf(hidden.getMessage());
    }

    protected Secret hiddenBecauseFinal() {
        return hidden;
    }

    static final class HiddenNested {
        public Secret hiddenInPackagePrivateClass() {
            return null;
        }
    }
}
