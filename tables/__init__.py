"""Tables: the table service (load → decide → append), projections, timers, bots, API, sockets, pages."""
