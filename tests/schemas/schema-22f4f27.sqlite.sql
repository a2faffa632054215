-- The store's schema as of commit 22f4f27, before migrations: SQLAlchemy's create_all of that
-- commit's rows, for sqlite (tests/test_migrations.py reads it).

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
	PRIMARY KEY (id)
);

CREATE INDEX ix_tables_status ON tables (status);

CREATE TABLE matches (
	id VARCHAR(32) NOT NULL,
	table_id VARCHAR(32) NOT NULL,
	game VARCHAR(64) NOT NULL,
	players INTEGER NOT NULL,
	options JSON NOT NULL,
	seed BIGINT NOT NULL,
	names JSON NOT NULL,
	result JSON,
	started_at DATETIME NOT NULL,
	finished_at DATETIME,
	PRIMARY KEY (id),
	FOREIGN KEY(table_id) REFERENCES tables (id)
);

CREATE INDEX ix_matches_finished_at ON matches (finished_at);

CREATE INDEX ix_matches_table_id ON matches (table_id);

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
	PRIMARY KEY (match_id, idx),
	FOREIGN KEY(match_id) REFERENCES matches (id)
);
