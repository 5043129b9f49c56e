"""Alembic environment: the gateway hands in an open connection."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from gateway.store.models import Base

config = context.config
connection = config.attributes.get("connection")

if connection is None:
    # Run from the alembic command line (autogenerate during development).
    url = config.get_main_option("sqlalchemy.url") or "sqlite:///var/gateway.db"
    with create_engine(url).connect() as conn:
        context.configure(connection=conn, target_metadata=Base.metadata)
        with context.begin_transaction():
            context.run_migrations()
else:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()
