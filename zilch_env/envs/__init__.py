"""The environments on the engine, each in its own module (imported where used, so that one does not
load the others' libraries):

- :mod:`~zilch_env.envs.gym_env`: ``ZilchEnv``, the Gymnasium environment (``Zilch-v0/v1/v2``);
- :mod:`~zilch_env.envs.vector`: ``ZilchVectorEnv``, the native vector env (``gym.make_vec``);
- :mod:`~zilch_env.envs.vec_env`: ``BatchedZilchVecEnv``, a Stable-Baselines3 ``VecEnv``;
- :mod:`~zilch_env.envs.aec`, :mod:`~zilch_env.envs.zilch_v1`, :mod:`~zilch_env.envs.zilch_v2`: PettingZoo;
- :mod:`~zilch_env.envs.openspiel`: the OpenSpiel game ``python_zilch``;
- :mod:`~zilch_env.envs.observation`, :mod:`~zilch_env.envs.reward`, :mod:`~zilch_env.envs.render`,
  :mod:`~zilch_env.envs.wrappers`, :mod:`~zilch_env.envs.opponents` (``opponents=``: agent specs and
  the entry points that provide them): what they share.
"""
