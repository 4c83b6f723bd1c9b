-- Support that sees the order (issue 32 item 4): a buyer's or visitor's request, with the diagnosis
-- the page had (the phone's system, the eSIM's state and usage, the plan), and its messages.
CREATE TABLE support_requests (
  id uuid PRIMARY KEY,
  -- The signed-in buyer; null for a visitor (and once the account is deleted).
  uid text,
  email text NOT NULL,
  -- The buyer's language: confirmations and replies go out in it.
  lang text NOT NULL,
  -- The buyer's own order or eSIM; for a visitor, the order their number names (only the provider sees it).
  order_id uuid REFERENCES orders (id),
  -- A visitor's order number as typed.
  order_number text,
  esim_tran_no text,
  diagnosis jsonb NOT NULL DEFAULT '{}',
  state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  -- The last buyer message (the inbox's order: the longest waiting first).
  last_buyer_message_at timestamptz NOT NULL DEFAULT now(),
  first_reply_at timestamptz,
  closed_at timestamptz
);
CREATE INDEX support_requests_open ON support_requests (last_buyer_message_at) WHERE state = 'open';
CREATE INDEX support_requests_by_uid ON support_requests (uid, created_at DESC) WHERE uid IS NOT NULL;
CREATE INDEX support_requests_by_order ON support_requests (order_id) WHERE order_id IS NOT NULL;

CREATE TABLE support_messages (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  request_id uuid NOT NULL REFERENCES support_requests (id) ON DELETE CASCADE,
  author text NOT NULL CHECK (author IN ('buyer', 'operator')),
  -- The operator who wrote it, and their recorded action (operator_actions).
  operator_uid text,
  operator_action_id bigint REFERENCES operator_actions (id),
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX support_messages_by_request ON support_messages (request_id, id);
