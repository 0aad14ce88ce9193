/** The deployment's audit log of admin changes: its entries and the rule that bounds it. */
package io.anteroom.room.audit;
