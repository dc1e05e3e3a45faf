"""Many devices: HloSharding values, replica groups, and sharding global arrays onto
devices and back (what a JAX user's global arrays look like on each device)."""
