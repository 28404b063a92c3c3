-- nagger state, schema v5: why each rule hit fired.
--
-- The dashboard showed that a call was refused or asked about, never why. Each hit now
-- keeps the reason its rule or guard check gave (the `why` that `nagger check` prints),
-- cut to 500 bytes; hits recorded before this version have none (NULL). A plain added
-- column: no index reads it, and the hook's one INSERT only binds one more value.
ALTER TABLE rule_hits ADD COLUMN reason TEXT;
