package io.kurir.message;

import io.kurir.store.Database;

/**
 * The stores of the {@code message} table, one per query family, opened together over one database
 * and one {@link StatusHook}.
 *
 * @param queue the send queue: storing, what is due, claims and giving claims back
 * @param outcomes state changes outside the claim: outcomes, withdrawals, cancels, retries
 * @param receipts the network's reports: a send's network id, receipts, early receipts
 * @param recovery the crash rule, when a lease is taken over
 * @param reads messages and their history by id
 */
record MessageStores(
    MessageStore queue,
    OutcomeStore outcomes,
    ReceiptStore receipts,
    RecoveryStore recovery,
    MessageReadStore reads) {

  static MessageStores open(Database db, StatusHook hook) {
    return new MessageStores(
        new MessageStore(db),
        new OutcomeStore(db, hook),
        new ReceiptStore(db, hook),
        new RecoveryStore(db, hook),
        new MessageReadStore(db));
  }
}
