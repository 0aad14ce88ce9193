/**
 * The waiting room as a Jakarta Servlet filter ({@link io.anteroom.servlet.AnteroomFilter}): the
 * door's adapter for servlet containers (Tomcat, Jetty, Spring Boot's embedded servers).
 */
package io.anteroom.servlet;
