package io.conduit.archfixture.api;

import io.conduit.archfixture.internal.Secret;

/** Fixture of {@code PackageGraphTest}: a public class whose supertype is internal. */
public class LeakySub extends Secret {
    private static final long serialVersionUID = 1L;
}
