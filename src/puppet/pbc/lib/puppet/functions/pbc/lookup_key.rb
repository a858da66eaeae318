# frozen_string_literal: true

require 'json'
require 'open3'
require 'socket'
require 'tempfile'

# A Hiera 5 `lookup_key` function that answers from a model compiled by pbc (the Puppet
# bindings compiler): bindings written in pbc's syntax reach `lookup()` and automatic class
# parameters with no change to Puppet.
#
# On the first key a catalog compile asks, it runs pbc once for the node (`pbc lookup --model
# MODEL --all --format answers`, the node's facts and trusted data in a private temporary file)
# and keeps the whole answer in the lookup context's cache; each key then returns its value or
# calls `not_found`. With `options: { socket: PATH }` it asks a running `pbc serve` instead,
# which keeps the model in memory: the compile opens one connection (its model, environment and
# facts) and asks each key as it comes, so a large model costs no more per compile than a small
# one. Values come as pbc resolved them (Puppet's rich data: Integer, Float,
# Sensitive and hash order kept), never interpolated again. A key whose answer failed in pbc is
# a lookup error naming pbc's diagnostic; a model that cannot be read, a pbc that cannot be run
# or does not answer in time is an error too, never a partial answer.
Puppet::Functions.create_function(:'pbc::lookup_key') do
  dispatch :lookup_key do
    param 'Variant[String, Numeric]', :key
    param 'Hash', :options
    param 'Puppet::LookupContext', :context
  end

  # What pbc writes (`pbc lookup --format answers`, docs/answers.md), and where a compile
  # keeps it.
  def answers_format
    'pbc-answers'
  end

  def answers_version
    1
  end

  def cache_key
    '__pbc_answers__'
  end

  def session_key
    '__pbc_session__'
  end

  def lookup_key(key, options, context)
    key = key.to_s
    answer = options['socket'] ? ask_server(key, options, context) : answer_of(key, options, context)
    if answer.nil?
      context.explain { "pbc: no binding of '#{key}' applies to this node" }
      return context.not_found
    end
    if answer['error']
      error = answer['error']
      place = error['at'] ? " at #{error['at']}" : ''
      notes = error['notes'].empty? ? '' : " (#{error['notes'].join('; ')})"
      raise Puppet::DataBinding::LookupError,
            "pbc cannot answer '#{key}': #{error['code']}#{place}: #{error['message']}#{notes}"
    end
    unless answer['found']
      context.explain { "pbc: nothing is bound to '#{key}' for this node" }
      return context.not_found
    end
    context.explain do
      conditions = (answer['when'] || []).map { |w| "#{w['category']} '#{w['value']}'" }
      matched = conditions.empty? ? 'always' : "when #{conditions.join(' and ')}"
      "pbc: '#{key}' from the binding at #{answer['origin']} in layer '#{answer['layer']}' (#{matched}), model #{options['model']}"
    end
    Puppet::Pops::Serialization::FromDataConverter.convert(answer['value'])
  end

  # A key's answer from the node's whole answer (from the cache after the first key of a
  # compile). A key it does not list is not found, unless the answer is not complete (a Hiera
  # level pbc cannot search might hold it): then pbc is asked for that key by name, once.
  def answer_of(key, options, context)
    answers = answers_for_node(options, context)
    keys = answers['keys']
    return keys[key] if keys.key?(key) || answers['complete']
    keys[key] = run_pbc(options, context, ['--', key])['keys'][key]
  end

  def answers_for_node(options, context)
    return context.cached_value(cache_key) if context.cache_has_key(cache_key)
    answers = run_pbc(options, context, ['--all'])
    context.cache(cache_key, answers)
    answers
  end

  # `pbc lookup --format answers` for the node, with `keys` (`--all`, or `--` and a key).
  def run_pbc(options, context, keys)
    model = model_path(options)
    unless File.file?(model)
      raise Puppet::DataBinding::LookupError, "pbc::lookup_key: the model '#{model}' does not exist or is not a file"
    end
    pbc = options['pbc'] || 'pbc'
    timeout = timeout_of(options)
    Tempfile.create(['pbc-facts', '.json']) do |file|
      # Tempfile creates the file exclusively, readable only by its owner (0600).
      file.write(JSON.generate(node_facts))
      file.flush
      argv = [pbc, 'lookup', '--model', model, '--facts', file.path, '--env', context.environment_name.to_s,
              '--format', 'answers', '--color', 'never', '--quiet', *keys]
      stdout, stderr, status = run(argv, timeout)
      read_answers(stdout, stderr, status, model)
    end
  end

  def timeout_of(options)
    (options['timeout'] || 10).to_f
  end

  # The node's facts with its trusted data and the server's facts, as data (what `pbc lookup
  # --facts` reads: its `trusted` is `$trusted`, its `server_facts` `$server_facts`). Facts of
  # those names that the agent sent are never taken for them.
  def node_facts
    scope = closure_scope
    facts = (scope['facts'] || {}).reject { |name, _| %w[trusted server_facts].include?(name) }
    trusted = scope['trusted']
    # Without `trusted` (a compile always has it), pbc makes it from the facts as Puppet does.
    facts = facts.merge('trusted' => trusted) unless trusted.nil?
    facts = facts.merge('server_facts' => scope['server_facts'] || {})
    Puppet::Pops::Serialization::ToDataConverter.convert(facts, rich_data: false, symbol_as_string: true)
  end

  # One key's answer from `pbc serve`, on the compile's connection (opened on its first key).
  # The first key of a namespace brings the namespace's other keys (a class's other parameters,
  # which Puppet asks next), kept for the compile; a key of a namespace already brought that
  # it did not hold is asked alone (Hiera data or a level pbc cannot search may still answer
  # it). A connection the server closed (idle between keys, or restarted) is opened again,
  # once.
  def ask_server(key, options, context)
    session = context.cache_has_key(session_key) ? context.cached_value(session_key) : nil
    return session[:answers][key] if session && session[:answers].key?(key)
    timeout = timeout_of(options)
    2.times do
      session ||= context.cache(session_key, { socket: open_session(options, context, timeout), answers: {}, namespaces: {} })
      namespace = key.include?('::') ? key.rpartition('::').first : nil
      batch = !namespace.nil? && !session[:namespaces].key?(namespace)
      line = exchange(session[:socket], JSON.generate('key' => key, 'namespace' => batch), timeout, options['socket'])
      unless line.nil?
        reply = JSON.parse(line)
        return reply unless batch && reply['answers'].is_a?(Hash)
        session[:namespaces][namespace] = true
        session[:answers].merge!(reply['answers'])
        return reply['answers'][key]
      end
      begin
        session[:socket].close
      rescue IOError
        nil
      end
      session = nil
    end
    raise Puppet::DataBinding::LookupError, "pbc::lookup_key: pbc serve at '#{options['socket']}' closed the connection twice while asked for '#{key}'"
  end

  def open_session(options, context, timeout)
    model = model_path(options)
    socket = begin
      UNIXSocket.new(options['socket'])
    rescue SystemCallError => e
      raise Puppet::DataBinding::LookupError, "pbc::lookup_key: cannot reach pbc serve at '#{options['socket']}': #{e.message}"
    end
    opening = { 'model' => model, 'environment' => context.environment_name.to_s, 'facts' => node_facts }
    line = exchange(socket, JSON.generate(opening), timeout, options['socket'])
    reply = begin
      JSON.parse(line.to_s)
    rescue JSON::ParserError
      nil
    end
    unless reply.is_a?(Hash) && reply['format'] == answers_format
      socket.close
      error = reply.is_a?(Hash) && reply['error']
      why = error ? "#{error['code']}: #{error['message']}#{error['notes'].empty? ? '' : " (#{error['notes'].join('; ')})"}" : 'it closed the connection'
      raise Puppet::DataBinding::LookupError, "pbc::lookup_key: pbc serve could not answer from '#{model}': #{why}"
    end
    unless reply['version'] == answers_version
      socket.close
      raise Puppet::DataBinding::LookupError,
            "pbc::lookup_key: pbc serve #{reply['pbc']} writes answers version #{reply['version']}; this module reads version #{answers_version}"
    end
    socket
  end

  # Sends one line and reads the reply's; nil when the server closed the connection.
  def exchange(socket, line, timeout, where)
    socket.write(line, "\n")
    raise Puppet::DataBinding::LookupError, "pbc::lookup_key: pbc serve at '#{where}' did not answer within #{timeout} seconds" unless IO.select([socket], nil, nil, timeout)
    socket.gets
  rescue Errno::EPIPE, Errno::ECONNRESET
    nil
  end

  # The model: `options.model`, relative to the environment's directory. Not a `path`, which
  # Hiera drops without a word when its file is missing: a deploy without its model would
  # silently lose every binding.
  def model_path(options)
    if options.key?('path')
      raise Puppet::DataBinding::LookupError,
            'pbc::lookup_key: give the model as `options: { model: PATH }`, not `path`: Hiera skips a `path` that does not exist without a word, and every binding would silently be lost'
    end
    model = options['model']
    raise Puppet::DataBinding::LookupError, 'pbc::lookup_key needs `options: { model: PATH }`: the model `pbc compile --cache` wrote' unless model.is_a?(String)
    return model if model.start_with?('/')
    environment = Puppet.lookup(:current_environment)
    File.join(environment.configuration.path_to_env, model)
  end

  # Runs pbc without a shell, within `timeout` seconds: its output, its errors, its status.
  def run(argv, timeout)
    Open3.popen3(*argv) do |stdin, stdout, stderr, wait|
      stdin.close
      out = Thread.new { stdout.read }
      err = Thread.new { stderr.read }
      unless wait.join(timeout)
        begin
          Process.kill('KILL', wait.pid)
        rescue Errno::ESRCH
          nil
        end
        wait.join
        raise Puppet::DataBinding::LookupError, "pbc::lookup_key: pbc did not answer within #{timeout} seconds (#{argv.first})"
      end
      [out.value, err.value, wait.value]
    end
  rescue SystemCallError => e
    raise Puppet::DataBinding::LookupError, "pbc::lookup_key: cannot run pbc (#{argv.first}): #{e.message}"
  end

  def read_answers(stdout, stderr, status, model)
    answers = begin
      JSON.parse(stdout)
    rescue JSON::ParserError
      nil
    end
    unless answers.is_a?(Hash) && answers['format'] == answers_format
      why = stderr.strip.empty? ? "exit status #{status.exitstatus}" : stderr.strip
      raise Puppet::DataBinding::LookupError, "pbc::lookup_key: pbc could not answer from '#{model}': #{why}"
    end
    unless answers['version'] == answers_version
      raise Puppet::DataBinding::LookupError,
            "pbc::lookup_key: pbc #{answers['pbc']} writes answers version #{answers['version']}; this module reads version #{answers_version}"
    end
    answers
  end
end
