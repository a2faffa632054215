-- The store's schema as of commit ecdaa2f, before migrations: SQLAlchemy's create_all of that
-- commit's rows, for sqlite (tests/test_migrations.py reads it).

CREATE TABLE accounts (
	id VARCHAR(32) NOT NULL,
	username VARCHAR(32) NOT NULL,
	name_key VARCHAR(64) NOT NULL,
	password_hash VARCHAR(256) NOT NULL,
	created_at DATETIME NOT NULL,
	PRIMARY KEY (id),
	UNIQUE (name_key)
);

CREATE TABLE match_players (
	match_id VARCHAR(32) NOT NULL,
	seat INTEGER NOT NULL,
	account_id VARCHAR(32),
	game VARCHAR(64) NOT NULL,
	rated BOOLEAN NOT NULL,
	rated_at DATETIME,
	place INTEGER,
	won BOOLEAN,
	"before" FLOAT,
	"after" FLOAT,
	PRIMARY KEY (match_id, seat)
);

CREATE INDEX ix_match_players_account_id ON match_players (account_id);

CREATE INDEX ix_match_players_rated_at ON match_players (rated_at);

CREATE TABLE nodes (
	id VARCHAR(64) NOT NULL,
	alive_until BIGINT NOT NULL,
	PRIMARY KEY (id)
);

CREATE TABLE seat_accounts (
	table_id VARCHAR(32) NOT NULL,
	token_hash VARCHAR(64) NOT NULL,
	account_id VARCHAR(32) NOT NULL,
	PRIMARY KEY (table_id, token_hash)
);

CREATE INDEX ix_seat_accounts_account_id ON seat_accounts (account_id);

CREATE TABLE tables (
	id VARCHAR(32) NOT NULL,
	game VARCHAR(64) NOT NULL,
	players INTEGER NOT NULL,
	options JSON NOT NULL,
	bot_level VARCHAR(16) NOT NULL,
	status VARCHAR(16) NOT NULL,
	version INTEGER NOT NULL,
	match_id VARCHAR(32),
	created_at DATETIME NOT NULL,
	host_hash VARCHAR(64),
	listed BOOLEAN NOT NULL,
	touched_at DATETIME,
	owner VARCHAR(64),
	lease_until BIGINT,
	bans JSON,
	PRIMARY KEY (id)
);

CREATE INDEX ix_tables_owner ON tables (owner);

CREATE INDEX ix_tables_status ON tables (status);

CREATE INDEX ix_tables_touched_at ON tables (touched_at);

CREATE TABLE account_sessions (
	id_hash VARCHAR(64) NOT NULL,
	account_id VARCHAR(32) NOT NULL,
	created_at DATETIME NOT NULL,
	expires_at DATETIME NOT NULL,
	PRIMARY KEY (id_hash),
	FOREIGN KEY(account_id) REFERENCES accounts (id)
);

CREATE INDEX ix_account_sessions_account_id ON account_sessions (account_id);

CREATE INDEX ix_account_sessions_expires_at ON account_sessions (expires_at);

CREATE TABLE matches (
	id VARCHAR(32) NOT NULL,
	table_id VARCHAR(32) NOT NULL,
	game VARCHAR(64) NOT NULL,
	players INTEGER NOT NULL,
	options JSON NOT NULL,
	seed BIGINT NOT NULL,
	secret VARCHAR(64),
	commitment VARCHAR(64),
	names JSON NOT NULL,
	result JSON,
	started_at DATETIME NOT NULL,
	finished_at DATETIME,
	PRIMARY KEY (id),
	FOREIGN KEY(table_id) REFERENCES tables (id)
);

CREATE INDEX ix_matches_finished_at ON matches (finished_at);

CREATE INDEX ix_matches_table_id ON matches (table_id);

CREATE TABLE ratings (
	account_id VARCHAR(32) NOT NULL,
	game VARCHAR(64) NOT NULL,
	mu FLOAT NOT NULL,
	sigma FLOAT NOT NULL,
	ordinal FLOAT NOT NULL,
	matches INTEGER NOT NULL,
	wins INTEGER NOT NULL,
	updated_at DATETIME NOT NULL,
	PRIMARY KEY (account_id, game),
	FOREIGN KEY(account_id) REFERENCES accounts (id)
);

CREATE INDEX ix_ratings_ordinal ON ratings (ordinal);

CREATE TABLE seats (
	table_id VARCHAR(32) NOT NULL,
	seat INTEGER NOT NULL,
	name VARCHAR(64),
	kind VARCHAR(8) NOT NULL,
	token_hash VARCHAR(64),
	bot_level VARCHAR(16),
	PRIMARY KEY (table_id, seat),
	FOREIGN KEY(table_id) REFERENCES tables (id)
);

CREATE TABLE moves (
	match_id VARCHAR(32) NOT NULL,
	idx INTEGER NOT NULL,
	seat INTEGER NOT NULL,
	text VARCHAR(256) NOT NULL,
	actor VARCHAR(8),
	PRIMARY KEY (match_id, idx),
	FOREIGN KEY(match_id) REFERENCES matches (id)
);

CREATE TABLE reviews (
	match_id VARCHAR(32) NOT NULL,
	seat INTEGER NOT NULL,
	data JSON NOT NULL,
	created_at DATETIME NOT NULL,
	PRIMARY KEY (match_id, seat),
	FOREIGN KEY(match_id) REFERENCES matches (id)
);
