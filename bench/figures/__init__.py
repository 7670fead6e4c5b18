"""One module per figure (a)-(e); each returns table rows measured against its reference."""
