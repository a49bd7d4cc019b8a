"""The environments on the engine, each in its own module (imported where used, so that one does not
load the others' libraries):

- :mod:`~zilch_env.envs.gym_env`: ``ZilchEnv``, the Gymnasium environment (``Zilch-v0/v1/v2``);
- :mod:`~zilch_env.envs.vector`: ``ZilchVectorEnv``, the native vector env (``gym.make_vec``);
- :mod:`~zilch_env.envs.vec_env`: ``BatchedZilchVecEnv``, a Stable-Baselines3 ``VecEnv``;
- :mod:`~zilch_env.envs.aec`, :mod:`~zilch_env.envs.zilch_v1`, :mod:`~zilch_env.envs.zilch_v2`: PettingZoo;
- :mod:`~zilch_env.envs.openspiel`: the OpenSpiel game ``python_zilch``;
- :mod:`~zilch_env.envs.reward` (the reward of a finished game, and the vector envs' step outcome),
  :mod:`~zilch_env.envs.render`, :mod:`~zilch_env.envs.wrappers`, :mod:`~zilch_env.envs.opponents`
  (``opponents=``: agent specs and the entry points that provide them): what they share.

Every environment shows the same observation of a game from a seat,
:func:`zilch_env.engine.observation.observe`: a function of the engine's state (as pgx's ``observe``
and OpenSpiel's ``ObservationTensor`` are the game's own), which the many-game view computes for a
whole batch in one kernel call.
"""
