/** The built-in demo site and its synthetic visitors. */
package io.anteroom.gateway.demo;
