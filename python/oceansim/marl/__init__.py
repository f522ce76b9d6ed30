"""Multi-agent environments on the in-process simulator, with PettingZoo's
parallel API (``pip install pettingzoo``), following its module
convention::

    from oceansim.marl import fleet_formation_v0
    env = fleet_formation_v0.parallel_env(n_agents=8, seed=0)

* ``fleet_formation_v0``: ``N`` vehicles hold a ring over one shared
  acoustic channel, each observing its own depth sensor, IMU and DVL and
  the positions it heard from the others.
"""

__all__ = ["fleet_formation_v0"]
